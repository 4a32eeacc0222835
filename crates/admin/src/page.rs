//! [`Page`]: a page of results in the shape Java's Dubbo Admin answers (Spring's `Page`:
//! `content`, `totalElements`, `totalPages`, `size`, `number`).

use serde::{Deserialize, Serialize};

/// Which page: `page` (from 0) of `size` (default 10, at most 1000).
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct PageRequest {
    /// The page number, from 0.
    #[serde(default)]
    pub page: usize,
    /// Entries per page.
    #[serde(default = "default_size")]
    pub size: usize,
}

fn default_size() -> usize {
    10
}

/// A page of `T`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    /// The entries of this page.
    pub content: Vec<T>,
    /// How many there are in all.
    pub total_elements: usize,
    /// How many pages there are.
    pub total_pages: usize,
    /// The page size.
    pub size: usize,
    /// This page's number, from 0.
    pub number: usize,
}

impl<T> Page<T> {
    /// The page `request` asks for out of `all`.
    pub fn of(all: Vec<T>, request: PageRequest) -> Self {
        let size = request.size.clamp(1, 1000);
        let total = all.len();
        let content: Vec<T> = all
            .into_iter()
            .skip(request.page.saturating_mul(size))
            .take(size)
            .collect();
        Self {
            content,
            total_elements: total,
            total_pages: total.div_ceil(size),
            size,
            number: request.page,
        }
    }
}

impl<T> Page<T> {
    /// The same page with each entry mapped through `f` (a page of positions becomes the
    /// entries they point to; only this page's entries are copied).
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            content: self.content.into_iter().map(f).collect(),
            total_elements: self.total_elements,
            total_pages: self.total_pages,
            size: self.size,
            number: self.number,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages() {
        let p = Page::of((0..25).collect(), PageRequest { page: 2, size: 10 });
        assert_eq!(p.content, vec![20, 21, 22, 23, 24]);
        assert_eq!((p.total_elements, p.total_pages, p.number), (25, 3, 2));
        let p = Page::of((0..5).collect::<Vec<_>>(), PageRequest { page: 9, size: 0 });
        assert!(p.content.is_empty());
        assert_eq!(p.size, 1);
    }
}

//! How `watch` prints a change: one line with the UTC time, the change and the first line of
//! the new content.

use std::time::{SystemTime, UNIX_EPOCH};

use dubbo_config_center::ConfigChangedEvent;

/// `2026-12-01T02:30:00.123Z Modified first line (+3 lines)`.
pub fn event_line(at: SystemTime, event: &ConfigChangedEvent) -> String {
    let mut line = format!("{} {:?}", utc(at), event.change);
    if let Some(content) = &event.content {
        line.push(' ');
        line.push_str(&first_line(content));
    }
    line
}

/// The first line of `content`, with how many more there are.
pub fn first_line(content: &str) -> String {
    let mut lines = content.lines();
    let first = lines.next().unwrap_or_default();
    match lines.count() {
        0 => first.to_owned(),
        1 => format!("{first} (+1 line)"),
        more => format!("{first} (+{more} lines)"),
    }
}

/// `at` as RFC 3339 UTC with milliseconds.
pub fn utc(at: SystemTime) -> String {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_date(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_date(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use dubbo_config_center::ConfigChangeType;

    use super::*;

    #[test]
    fn times_are_utc() {
        assert_eq!(utc(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let at = UNIX_EPOCH + Duration::from_millis(951_827_696_789);
        assert_eq!(utc(at), "2000-02-29T12:34:56.789Z");
        let at = UNIX_EPOCH + Duration::from_secs(1_796_083_199);
        assert_eq!(utc(at), "2026-11-30T23:59:59.000Z");
    }

    #[test]
    fn lines_show_the_change_and_the_first_line() {
        let event = |change, content: Option<&str>| ConfigChangedEvent {
            key: "k".to_owned(),
            group: "g".to_owned(),
            content: content.map(str::to_owned),
            change,
        };
        assert_eq!(
            event_line(
                UNIX_EPOCH,
                &event(ConfigChangeType::Added, Some("a: 1\nb: 2"))
            ),
            "1970-01-01T00:00:00.000Z Added a: 1 (+1 line)"
        );
        assert_eq!(
            event_line(UNIX_EPOCH, &event(ConfigChangeType::Deleted, None)),
            "1970-01-01T00:00:00.000Z Deleted"
        );
        assert_eq!(first_line("x\ny\nz"), "x (+2 lines)");
        assert_eq!(first_line(""), "");
    }
}

//! Directories: the providers of one service as a consumer knows them.

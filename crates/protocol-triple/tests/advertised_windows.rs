//! What the server advertises at connection start, read off the wire: its connection window
//! (65,535 plus its first WINDOW_UPDATE on stream 0) must exceed the stream window of its
//! SETTINGS. Java Dubbo 3.2's Triple client drops the whole connection when its connection send
//! window reaches exactly zero; with the connection window the larger, a single request that
//! outgrows its stream window (one the server refuses as oversize, say) cannot get it there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_protocol_triple::{TripleConfig, TripleServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const SETTINGS: u8 = 4;
const WINDOW_UPDATE: u8 = 8;
const SETTINGS_INITIAL_WINDOW_SIZE: u16 = 4;

async fn read_frame(io: &mut TcpStream) -> (u8, u8, u32, Vec<u8>) {
    let mut head = [0u8; 9];
    io.read_exact(&mut head).await.unwrap();
    let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
    let stream = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
    let mut payload = vec![0u8; len];
    io.read_exact(&mut payload).await.unwrap();
    (head[3], head[4], stream, payload)
}

#[tokio::test]
async fn connection_window_exceeds_stream_window() {
    let config = TripleConfig::default();
    let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), config.clone())
        .await
        .unwrap();
    let mut io = TcpStream::connect(server.local_addr()).await.unwrap();
    io.write_all(PREFACE).await.unwrap();
    // An empty SETTINGS frame: the client's half of the preface.
    io.write_all(&[0, 0, 0, SETTINGS, 0, 0, 0, 0, 0])
        .await
        .unwrap();

    let mut stream_window = None;
    let mut connection_window = None;
    let read = async {
        while stream_window.is_none() || connection_window.is_none() {
            let (kind, flags, stream, payload) = read_frame(&mut io).await;
            match kind {
                SETTINGS if flags & 1 == 0 => {
                    // No entry for the initial window means the protocol default.
                    stream_window = Some(65_535);
                    for entry in payload.chunks_exact(6) {
                        if u16::from_be_bytes([entry[0], entry[1]]) == SETTINGS_INITIAL_WINDOW_SIZE
                        {
                            stream_window =
                                Some(u32::from_be_bytes([entry[2], entry[3], entry[4], entry[5]]));
                        }
                    }
                }
                WINDOW_UPDATE if stream == 0 => {
                    let inc = u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]])
                        & 0x7fff_ffff;
                    connection_window = Some(65_535 + inc);
                }
                _ => {}
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .expect("SETTINGS and a connection WINDOW_UPDATE within 5 s");
    let (stream_window, connection_window) = (stream_window.unwrap(), connection_window.unwrap());
    assert_eq!(stream_window, config.initial_stream_window);
    assert_eq!(connection_window, config.initial_connection_window);
    assert!(
        connection_window > stream_window,
        "connection window {connection_window} must exceed the stream window {stream_window}"
    );
}

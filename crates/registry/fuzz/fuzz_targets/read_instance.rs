//! Feeds arbitrary bytes, cut into documents at every 0xFF byte, to the Curator instance JSON
//! reader, once with a fresh reader per document and once with one reader kept across them
//! (which matches later documents against the metadata of earlier ones, and reads those with
//! the layout of the last one it read in full along that layout), then once more with the
//! kept reader, along the document's own layout. Nothing may panic; all readings must agree; whatever is accepted must be JSON that serde_json accepts too (when
//! it is UTF-8 throughout), with the same application name, and must read back unchanged from
//! the JSON it writes.

#![no_main]

use dubbo_registry::{InstanceReader, ServiceInstance};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut warm = InstanceReader::new();
    for doc in data.split(|b| *b == 0xff) {
        let fresh = InstanceReader::new().read_curator_json("/fuzz", doc);
        let warmed = warm.read_curator_json("/fuzz", doc);
        let again = warm.read_curator_json("/fuzz", doc);
        let instance = match (fresh, warmed, again) {
            (Ok(a), Ok(b), Ok(c)) => {
                assert_eq!(a, b, "a fresh and a warmed reader read different instances");
                assert_eq!(a, c, "a document read differently along its own layout");
                a
            }
            (Err(_), Err(b), Err(c)) => {
                assert_eq!(b.to_string(), c.to_string(), "refused for different reasons");
                continue;
            }
            (a, b, c) => panic!("the readers disagree: {a:?}, {b:?}, {c:?}"),
        };
        // Like serde_json when it skips a field, the reader does not check the UTF-8 of
        // strings it skips; every other rule of JSON it holds to.
        let Ok(text) = std::str::from_utf8(doc) else {
            continue;
        };
        let value: serde_json::Value =
            serde_json::from_str(text).expect("an accepted document is JSON");
        assert_eq!(
            value.get("name").and_then(|n| n.as_str()),
            Some(instance.app.as_str()),
            "the application name differs from serde_json's reading"
        );
        let written = instance.to_curator_json();
        let again = ServiceInstance::from_curator_json("/fuzz", written.as_bytes())
            .expect("the reader reads the JSON it writes");
        assert_eq!(again, instance, "an instance changed through its own JSON");
    }
});

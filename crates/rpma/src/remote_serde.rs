//! A peer's region as serde data (feature `serde`): what a program sends
//! its peer by its own means (a control connection, a file) instead of the
//! 21-byte descriptor. Deserialising checks what `MrRemote::from_parts`
//! checks.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::mr::{MrRemote, Usage};

/// The fields as they are written.
#[derive(Serialize, Deserialize)]
#[serde(rename = "MrRemote", deny_unknown_fields)]
struct Fields {
    raddr: u64,
    size: u64,
    rkey: u32,
    usage: u8,
}

impl Serialize for MrRemote {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Fields {
            raddr: self.raddr,
            size: self.size,
            rkey: self.rkey,
            usage: self.usage,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for MrRemote {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MrRemote, D::Error> {
        let f = Fields::deserialize(d)?;
        let usage = Usage::from_bits_truncate(u32::from(f.usage));
        MrRemote::from_parts(f.raddr, f.size, f.rkey, usage)
            .map_err(|_| D::Error::custom("a remote region needs at least one usage"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_a_region_without_usage() {
        let mr =
            MrRemote::from_parts(0x1000, 4096, 0x77, Usage::WRITE_DST | Usage::READ_SRC).unwrap();
        let text = serde_json::to_string(&mr).unwrap();
        assert_eq!(
            text,
            format!(
                r#"{{"raddr":4096,"size":4096,"rkey":119,"usage":{}}}"#,
                (Usage::WRITE_DST | Usage::READ_SRC).bits()
            )
        );
        assert_eq!(serde_json::from_str::<MrRemote>(&text).unwrap(), mr);
        let bad = r#"{"raddr":1,"size":1,"rkey":1,"usage":0}"#;
        assert!(serde_json::from_str::<MrRemote>(bad).is_err());
        let extra = r#"{"raddr":1,"size":1,"rkey":1,"usage":1,"x":0}"#;
        assert!(serde_json::from_str::<MrRemote>(extra).is_err());
    }
}

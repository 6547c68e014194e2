//! The ranking weights. Built with `--features tuning`, `VS_TUNE="name=value,..."` overrides
//! them, so the weights can be re-fitted against query sets without recompiling; release
//! builds always use the defaults.

#[cfg(feature = "tuning")]
use std::collections::HashMap;

/// A ranking constant. Built with `--features tuning`, `VS_TUNE="name=value,..."` overrides
/// them, so the weights can be re-fitted against query sets without recompiling; release
/// builds always use the defaults written here.
pub(crate) fn tune(name: &str, default: f32) -> f32 {
    #[cfg(feature = "tuning")]
    {
        use std::sync::OnceLock;
        static MAP: OnceLock<HashMap<String, f32>> = OnceLock::new();
        let map = MAP.get_or_init(|| {
            std::env::var("VS_TUNE")
                .unwrap_or_default()
                .split(',')
                .filter_map(|kv| kv.split_once('='))
                .filter_map(|(k, v)| Some((k.trim().to_string(), v.trim().parse().ok()?)))
                .collect()
        });
        if let Some(v) = map.get(name) {
            return *v;
        }
    }
    let _ = name;
    default
}

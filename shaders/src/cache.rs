//! The on-disk SPIR-V cache: one file per compile, named by a SHA-256 of the source, every
//! resolved include, the request and the options. Entries carry their key and a checksum;
//! a truncated, foreign or corrupt entry is a miss (and is removed), never an error.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use crate::compile::CompileSettings;
use crate::include::collect_includes;
use crate::request::{ShaderLanguage, ShaderRequest};

/// The format tag at the start of every entry; bump it when the layout or the compiler changes.
const ENTRY_MAGIC: &[u8; 8] = b"RPSLSPV2";
const SPIRV_MAGIC: u32 = 0x0723_0203;

/// A cache key: SHA-256 of everything that determines a compile's output.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey(pub [u8; 32]);

impl CacheKey {
    /// The key as 64 lowercase hex digits.
    pub fn to_hex(self) -> String {
        self.0.iter().map(|byte| format!("{byte:02x}")).collect()
    }
}

/// Hashes length-prefixed fields so that no two field sequences collide by concatenation.
struct KeyHasher(Sha256);

impl KeyHasher {
    fn field(&mut self, bytes: &[u8]) {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }
}

/// Computes the key of `request` compiled with `settings`, reading its include files.
pub fn cache_key(request: &ShaderRequest, settings: &CompileSettings) -> CacheKey {
    let mut hasher = KeyHasher(Sha256::new());
    hasher.field(ENTRY_MAGIC);
    hasher.field(env!("CARGO_PKG_VERSION").as_bytes());
    hasher.field(match request.language {
        ShaderLanguage::Glsl => b"glsl",
        ShaderLanguage::Hlsl => b"hlsl",
    });
    hasher.field(request.stage.extension().as_bytes());
    hasher.field(request.entry_point.as_bytes());
    hasher.field(request.display_path().as_bytes());
    hasher.field(&(request.defines.len() as u64).to_le_bytes());
    for (name, value) in &request.defines {
        hasher.field(name.as_bytes());
        hasher.field(value.as_bytes());
    }
    hasher.field(&[settings.optimize as u8, settings.debug_info as u8]);
    let shifts = settings.hlsl_shifts;
    for shift in [
        shifts.texture,
        shifts.sampler,
        shifts.unordered_access,
        shifts.constant_buffer,
    ] {
        hasher.field(&shift.to_le_bytes());
    }
    for dir in &settings.include_dirs {
        hasher.field(dir.display().to_string().as_bytes());
    }
    hasher.field(request.source.as_bytes());
    let path = request.display_path();
    for include in collect_includes(&request.source, &path, &settings.include_dirs) {
        match include {
            Ok(file) => {
                hasher.field(file.path.display().to_string().as_bytes());
                hasher.field(file.content.as_bytes());
            }
            Err(missing) => {
                hasher.field(b"<missing>");
                hasher.field(missing.as_bytes());
            }
        }
    }
    CacheKey(hasher.0.finalize().into())
}

/// A directory of cached SPIR-V modules.
#[derive(Clone, Debug)]
pub struct SpirvCache {
    dir: PathBuf,
}

impl SpirvCache {
    /// A cache in `dir` (created on the first store).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        SpirvCache { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `key`.
    pub fn entry_path(&self, key: CacheKey) -> PathBuf {
        self.dir.join(format!("{}.spv", key.to_hex()))
    }

    /// The cached module and its include list, or `None` on a miss or a bad entry (removed).
    pub fn load(&self, key: CacheKey) -> Option<(Vec<u32>, Vec<PathBuf>)> {
        let path = self.entry_path(key);
        let bytes = std::fs::read(&path).ok()?;
        match decode_entry(&bytes, key) {
            Some(entry) => Some(entry),
            None => {
                // A corrupt entry is dropped so that the next store replaces it; failure to remove
                // it only costs a recompile next time.
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Stores a module; returns whether it was written (a read-only or full disk is not an error).
    pub fn store(&self, key: CacheKey, spirv: &[u32], includes: &[PathBuf]) -> bool {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        if std::fs::create_dir_all(&self.dir).is_err() {
            return false;
        }
        let bytes = encode_entry(key, spirv, includes);
        let temp = self.dir.join(format!(
            "{}.tmp.{}.{}",
            key.to_hex(),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        if std::fs::write(&temp, bytes).is_err() {
            let _ = std::fs::remove_file(&temp);
            return false;
        }
        if std::fs::rename(&temp, self.entry_path(key)).is_err() {
            let _ = std::fs::remove_file(&temp);
            return false;
        }
        true
    }
}

/// Layout: magic, key, word count (u32), include count (u32), each include (u32 length + UTF-8),
/// the words (little-endian), then SHA-256 of all the bytes before it.
fn encode_entry(key: CacheKey, spirv: &[u32], includes: &[PathBuf]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(spirv.len() * 4 + 128);
    bytes.extend_from_slice(ENTRY_MAGIC);
    bytes.extend_from_slice(&key.0);
    bytes.extend_from_slice(&(spirv.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&(includes.len() as u32).to_le_bytes());
    for include in includes {
        let text = include.display().to_string();
        bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
        bytes.extend_from_slice(text.as_bytes());
    }
    for word in spirv {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    let checksum: [u8; 32] = Sha256::digest(&bytes).into();
    bytes.extend_from_slice(&checksum);
    bytes
}

fn decode_entry(bytes: &[u8], key: CacheKey) -> Option<(Vec<u32>, Vec<PathBuf>)> {
    let body_len = bytes.len().checked_sub(32)?;
    let (body, checksum) = bytes.split_at(body_len);
    if Sha256::digest(body).as_slice() != checksum {
        return None;
    }
    let mut reader = Reader { bytes: body, at: 0 };
    if reader.take(8)? != ENTRY_MAGIC || reader.take(32)? != key.0 {
        return None;
    }
    let word_count = reader.u32()? as usize;
    let include_count = reader.u32()? as usize;
    let mut includes = Vec::new();
    for _ in 0..include_count {
        let length = reader.u32()? as usize;
        includes.push(PathBuf::from(
            std::str::from_utf8(reader.take(length)?).ok()?,
        ));
    }
    let word_bytes = reader.take(word_count.checked_mul(4)?)?;
    if reader.at != body.len() {
        return None;
    }
    let spirv: Vec<u32> = word_bytes
        .chunks_exact(4)
        .map(|chunk| u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
        .collect();
    if spirv.first() != Some(&SPIRV_MAGIC) {
        return None;
    }
    Some((spirv, includes))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, length: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(length)?;
        let slice = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(slice)
    }

    fn u32(&mut self) -> Option<u32> {
        let bytes = self.take(4)?;
        Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_reject_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let cache = SpirvCache::new(dir.path().join("c"));
        let key = CacheKey([7; 32]);
        let words = vec![SPIRV_MAGIC, 0x0001_0600, 0, 1, 0];
        let includes = vec![PathBuf::from("a/b.glsl")];
        assert!(cache.store(key, &words, &includes));
        assert_eq!(cache.load(key), Some((words.clone(), includes.clone())));
        assert_eq!(cache.load(CacheKey([8; 32])), None);

        let path = cache.entry_path(key);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[50] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(cache.load(key), None);
        assert!(!path.exists(), "a corrupt entry is removed");

        assert!(cache.store(key, &words, &includes));
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert_eq!(cache.load(key), None);
        std::fs::write(&path, b"").unwrap();
        assert_eq!(cache.load(key), None);
    }

    #[test]
    fn an_entry_under_the_wrong_name_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = SpirvCache::new(dir.path());
        let words = vec![SPIRV_MAGIC, 0, 0, 1, 0];
        assert!(cache.store(CacheKey([1; 32]), &words, &[]));
        std::fs::copy(
            cache.entry_path(CacheKey([1; 32])),
            cache.entry_path(CacheKey([2; 32])),
        )
        .unwrap();
        assert_eq!(cache.load(CacheKey([2; 32])), None);
    }
}

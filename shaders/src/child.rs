//! Compiling untrusted shader sources in a child process with a time limit.
//!
//! glslang can crash or hang on hostile input (for example a global `static const` initialised
//! from run-time values), so [`crate::Isolation::Child`] runs each compile in a fresh process: the
//! parent starts a program (normally its own executable) with a hidden argument, writes the request
//! to its stdin and reads the reply from its stdout. A program that wants to be such a child calls
//! [`serve_if_requested`] first thing in `main`:
//!
//! ```no_run
//! fn main() {
//!     rpsl_shaders::child::serve_if_requested();
//!     // ... the program's normal work ...
//! }
//! ```
//!
//! A crash becomes [`ShaderError::ChildCrashed`], a hang [`ShaderError::ChildTimedOut`].

// The module example shows where the call goes in `main`, so its `fn main` is the point.
#![allow(clippy::needless_doctest_main)]

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::compile::{compile_in_process, CompileSettings, CompiledWords};
use crate::error::{Diagnostic, ShaderError};
use crate::request::{ChildConfig, HlslBindingShifts, ShaderLanguage, ShaderRequest, ShaderStage};

/// The hidden argument that turns a program into a compile child.
pub const CHILD_ARGUMENT: &str = "--rpsl-internal-shader-compile-child";

const REQUEST_MAGIC: &[u8; 8] = b"RPSLCHQ1";
const REPLY_MAGIC: &[u8; 8] = b"RPSLCHR1";
/// The most bytes a request or reply may take (a guard against garbage lengths).
const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// If this process was started as a compile child (its arguments contain [`CHILD_ARGUMENT`]),
/// serves the one request on stdin and exits; otherwise returns at once.
pub fn serve_if_requested() {
    if !std::env::args_os().skip(1).any(|arg| arg == CHILD_ARGUMENT) {
        return;
    }
    let mut input = Vec::new();
    let reply = match std::io::stdin()
        .lock()
        .take(MAX_MESSAGE_BYTES as u64)
        .read_to_end(&mut input)
    {
        Ok(_) => match decode_request(&input) {
            Some((request, settings)) => compile_in_process(&request, &settings),
            None => Err(ShaderError::ChildProtocol {
                message: "unreadable request".to_string(),
            }),
        },
        Err(error) => Err(ShaderError::ChildProtocol {
            message: error.to_string(),
        }),
    };
    let bytes = encode_reply(&reply);
    let mut stdout = std::io::stdout().lock();
    let written = stdout.write_all(&bytes).and_then(|()| stdout.flush());
    std::process::exit(if written.is_ok() { 0 } else { 1 });
}

/// Compiles `request` in a child process started as `config` says.
pub fn compile_in_child(
    request: &ShaderRequest,
    settings: &CompileSettings,
    config: &ChildConfig,
) -> Result<CompiledWords, ShaderError> {
    let path = request.display_path();
    let mut child = Command::new(&config.program)
        .args(&config.args)
        .arg(CHILD_ARGUMENT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| ShaderError::ChildSpawn {
            program: config.program.clone(),
            message: error.to_string(),
        })?;
    let request_bytes = encode_request(request, settings);
    let mut stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(stdin) = stdin.as_mut() {
            // A child that dies early closes its stdin; the exit status then tells what happened.
            let _ = stdin.write_all(&request_bytes);
        }
    });
    let mut stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut output = Vec::new();
        if let Some(stdout) = stdout.as_mut() {
            let _ = stdout
                .take(MAX_MESSAGE_BYTES as u64)
                .read_to_end(&mut output);
        }
        output
    });
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(error) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ShaderError::ChildCrashed {
                    path,
                    status: error.to_string(),
                });
            }
        }
        if started.elapsed() >= config.timeout {
            let _ = child.kill();
            let _ = child.wait();
            // The pipe threads are left to finish on their own: a grandchild may still hold the
            // pipes open, and waiting for it would defeat the time limit.
            drop((writer, reader));
            return Err(ShaderError::ChildTimedOut {
                path,
                limit_ms: config.timeout.as_millis() as u64,
            });
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    let _ = writer.join();
    let output = reader.join().unwrap_or_default();
    if !status.success() {
        return Err(ShaderError::ChildCrashed {
            path,
            status: status.to_string(),
        });
    }
    match decode_reply(&output) {
        Some(reply) => reply,
        None if output.is_empty() => Err(ShaderError::ChildCrashed {
            path,
            status: format!("{status} without a reply; does the program call rpsl_shaders::child::serve_if_requested()?"),
        }),
        None => Err(ShaderError::ChildProtocol { message: format!("{} unreadable bytes", output.len()) }),
    }
}

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, value: u8) {
        self.0.push(value);
    }
    fn u32(&mut self, value: u32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }
    fn text(&mut self, text: &str) {
        self.u32(text.len() as u32);
        self.0.extend_from_slice(text.as_bytes());
    }
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
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        let bytes = self.take(4)?;
        Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }
    fn text(&mut self) -> Option<String> {
        let length = self.u32()? as usize;
        String::from_utf8(self.take(length)?.to_vec()).ok()
    }
    fn count(&mut self) -> Option<usize> {
        let count = self.u32()? as usize;
        // Every counted item takes at least 4 bytes: a larger count is garbage.
        (count <= (self.bytes.len() - self.at) / 4).then_some(count)
    }
    fn done(&self) -> bool {
        self.at == self.bytes.len()
    }
}

fn encode_request(request: &ShaderRequest, settings: &CompileSettings) -> Vec<u8> {
    let mut writer = Writer::default();
    writer.0.extend_from_slice(REQUEST_MAGIC);
    writer.u8(match request.language {
        ShaderLanguage::Glsl => 0,
        ShaderLanguage::Hlsl => 1,
    });
    writer.u8(match request.stage {
        ShaderStage::Vertex => 0,
        ShaderStage::Fragment => 1,
        ShaderStage::Compute => 2,
        ShaderStage::Geometry => 3,
        ShaderStage::TessControl => 4,
        ShaderStage::TessEvaluation => 5,
    });
    writer.u8(settings.optimize as u8 | (settings.debug_info as u8) << 1);
    let shifts = settings.hlsl_shifts;
    for shift in [
        shifts.texture,
        shifts.sampler,
        shifts.unordered_access,
        shifts.constant_buffer,
    ] {
        writer.u32(shift);
    }
    writer.text(&request.display_path());
    writer.text(&request.entry_point);
    writer.text(&request.source);
    writer.u32(request.defines.len() as u32);
    for (name, value) in &request.defines {
        writer.text(name);
        writer.text(value);
    }
    writer.u32(settings.include_dirs.len() as u32);
    for dir in &settings.include_dirs {
        writer.text(&dir.display().to_string());
    }
    writer.0
}

fn decode_request(bytes: &[u8]) -> Option<(ShaderRequest, CompileSettings)> {
    let mut reader = Reader { bytes, at: 0 };
    if reader.take(8)? != REQUEST_MAGIC {
        return None;
    }
    let language = match reader.u8()? {
        0 => ShaderLanguage::Glsl,
        1 => ShaderLanguage::Hlsl,
        _ => return None,
    };
    let stage = match reader.u8()? {
        0 => ShaderStage::Vertex,
        1 => ShaderStage::Fragment,
        2 => ShaderStage::Compute,
        3 => ShaderStage::Geometry,
        4 => ShaderStage::TessControl,
        5 => ShaderStage::TessEvaluation,
        _ => return None,
    };
    let flags = reader.u8()?;
    let (optimize, debug_info) = (flags & 1 != 0, flags & 2 != 0);
    let hlsl_shifts = HlslBindingShifts {
        texture: reader.u32()?,
        sampler: reader.u32()?,
        unordered_access: reader.u32()?,
        constant_buffer: reader.u32()?,
    };
    let path = reader.text()?;
    let entry_point = reader.text()?;
    let source = reader.text()?;
    let mut defines = Vec::new();
    for _ in 0..reader.count()? {
        defines.push((reader.text()?, reader.text()?));
    }
    let mut include_dirs = Vec::new();
    for _ in 0..reader.count()? {
        include_dirs.push(PathBuf::from(reader.text()?));
    }
    if !reader.done() {
        return None;
    }
    let request = ShaderRequest {
        source,
        path: PathBuf::from(path),
        language,
        stage,
        entry_point,
        defines,
    };
    Some((
        request,
        CompileSettings {
            include_dirs,
            optimize,
            hlsl_shifts,
            debug_info,
        },
    ))
}

fn encode_reply(reply: &Result<CompiledWords, ShaderError>) -> Vec<u8> {
    let mut writer = Writer::default();
    writer.0.extend_from_slice(REPLY_MAGIC);
    match reply {
        Ok(compiled) => {
            writer.u8(0);
            writer.u32(compiled.spirv.len() as u32);
            for word in &compiled.spirv {
                writer.u32(*word);
            }
            writer.u32(compiled.includes.len() as u32);
            for include in &compiled.includes {
                writer.text(&include.display().to_string());
            }
        }
        Err(ShaderError::Compile { path, diagnostics }) => {
            writer.u8(1);
            writer.text(path);
            writer.u32(diagnostics.len() as u32);
            for diagnostic in diagnostics {
                writer.text(&diagnostic.file);
                writer.u32(diagnostic.line.map_or(0, |line| line.saturating_add(1)));
                writer.text(&diagnostic.message);
            }
        }
        Err(ShaderError::NulInSource { path }) => {
            writer.u8(2);
            writer.text(path);
        }
        Err(other) => {
            writer.u8(3);
            writer.text(&other.to_string());
        }
    }
    writer.0
}

fn decode_reply(bytes: &[u8]) -> Option<Result<CompiledWords, ShaderError>> {
    let mut reader = Reader { bytes, at: 0 };
    if reader.take(8)? != REPLY_MAGIC {
        return None;
    }
    let reply = match reader.u8()? {
        0 => {
            let mut spirv = Vec::new();
            for _ in 0..reader.count()? {
                spirv.push(reader.u32()?);
            }
            let mut includes = Vec::new();
            for _ in 0..reader.count()? {
                includes.push(PathBuf::from(reader.text()?));
            }
            Ok(CompiledWords { spirv, includes })
        }
        1 => {
            let path = reader.text()?;
            let mut diagnostics = Vec::new();
            for _ in 0..reader.count()? {
                let file = reader.text()?;
                let line = reader.u32()?.checked_sub(1);
                diagnostics.push(Diagnostic {
                    file,
                    line,
                    message: reader.text()?,
                });
            }
            Err(ShaderError::Compile { path, diagnostics })
        }
        2 => Err(ShaderError::NulInSource {
            path: reader.text()?,
        }),
        3 => Err(ShaderError::CompilerInit {
            message: reader.text()?,
        }),
        _ => return None,
    };
    reader.done().then_some(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_replies_round_trip() {
        let request = ShaderRequest::new(
            "void main(){}",
            "a/b.frag",
            ShaderLanguage::Hlsl,
            ShaderStage::Fragment,
        )
        .with_entry_point("ps")
        .with_define("N", "4");
        let settings = CompileSettings {
            include_dirs: vec![PathBuf::from("inc")],
            optimize: false,
            hlsl_shifts: HlslBindingShifts {
                texture: 1,
                sampler: 2,
                unordered_access: 3,
                constant_buffer: 4,
            },
            debug_info: true,
        };
        assert_eq!(
            decode_request(&encode_request(&request, &settings)),
            Some((request, settings))
        );

        let ok: Result<CompiledWords, ShaderError> = Ok(CompiledWords {
            spirv: vec![1, 2, 3],
            includes: vec![PathBuf::from("x.h")],
        });
        assert_eq!(decode_reply(&encode_reply(&ok)), Some(ok));
        let error: Result<CompiledWords, ShaderError> = Err(ShaderError::Compile {
            path: "p".to_string(),
            diagnostics: vec![
                Diagnostic {
                    file: "f".to_string(),
                    line: Some(3),
                    message: "m".to_string(),
                },
                Diagnostic {
                    file: "g".to_string(),
                    line: None,
                    message: "n".to_string(),
                },
            ],
        });
        assert_eq!(decode_reply(&encode_reply(&error)), Some(error));
    }

    #[test]
    fn garbage_is_rejected_without_panicking() {
        assert_eq!(decode_request(b""), None);
        assert_eq!(
            decode_request(b"RPSLCHQ1\x00\x00\x01\xff\xff\xff\xff"),
            None
        );
        assert_eq!(decode_reply(b"RPSLCHR1\x00\xff\xff\xff\x7f"), None);
        let mut reply = encode_reply(&Ok(CompiledWords {
            spirv: vec![9],
            includes: vec![],
        }));
        reply.push(0);
        assert_eq!(decode_reply(&reply), None);
    }
}

//! Source text the way editors write it and the way attackers might: a leading UTF-8 byte order
//! mark is skipped (columns count from after it), and control characters in a script never reach
//! the terminal raw (excerpts show them as Unicode control pictures).

use std::fs;
use std::path::PathBuf;
use std::process::Command;

/// Writes `bytes` to a fresh temporary file named `name`.
fn script(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rpsl-source-text-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path
}

/// `rpsl check PATH`: exit code and stderr.
fn check(path: &PathBuf) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .arg("check")
        .arg(path)
        .output()
        .expect("rpsl runs");
    assert!(output.stdout.is_empty());
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stderr).expect("diagnostics are UTF-8"),
    )
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let clean = script(
        "bom_clean.rpsl",
        b"\xef\xbb\xbfgraphics node Draw(rtv rt);\nexport void main(texture bb) { Draw(bb); }\n",
    );
    assert_eq!(check(&clean), (0, String::new()));
    let broken = script(
        "bom_error.rpsl",
        b"\xef\xbb\xbfexport void main() { uint a = b; }\n",
    );
    let shown = broken.display();
    assert_eq!(
        check(&broken),
        (
            1,
            format!(
                "{shown}:1:31: error: unknown name `b`\n  \
                 ┌─ {shown}:1:31\n  │\n\
                 1 │ export void main() {{ uint a = b; }}\n  \
                 │                               ^\n\n"
            )
        )
    );
}

#[test]
fn control_characters_are_shown_as_pictures() {
    let path = script(
        "controls.rpsl",
        b"export void main() { uint a = 1;\x00 \x1b[31m }\n",
    );
    let shown = path.display();
    let (code, stderr) = check(&path);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        format!(
            "{shown}:1:33: error: expected statement or `}}`, found `\\u{{0}}`\n  \
             ┌─ {shown}:1:33\n  │\n\
             1 │ export void main() {{ uint a = 1;␀ ␛[31m }}\n  \
             │                    -            ^\n  \
             │                    │             \n  \
             │                    unclosed `{{`\n\n"
        )
    );
    assert!(
        !stderr.contains(['\0', '\x1b']),
        "no control character reaches the terminal"
    );
}

//! Finding a node's shader files by name in the shader directory, and noticing when they (or
//! their includes) change so that the next frame recompiles them.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rpsl_shaders::ShaderStage;

/// The shader files of one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NodeShaderFiles {
    /// A compute node's shader (`Foo.comp` or `Foo.comp.hlsl`).
    pub compute: Option<PathBuf>,
    /// A graphics node's vertex shader, if given (`Foo.vert` or `Foo.vert.hlsl`).
    pub vertex: Option<PathBuf>,
    /// A graphics node's fragment shader (`Foo.frag` or `Foo.frag.hlsl`).
    pub fragment: Option<PathBuf>,
}

impl NodeShaderFiles {
    /// The stages to compile, in pipeline order.
    pub fn stages(&self) -> Vec<(ShaderStage, &Path)> {
        let mut stages = Vec::new();
        if let Some(path) = &self.compute {
            stages.push((ShaderStage::Compute, path.as_path()));
        }
        if let Some(path) = &self.vertex {
            stages.push((ShaderStage::Vertex, path.as_path()));
        }
        if let Some(path) = &self.fragment {
            stages.push((ShaderStage::Fragment, path.as_path()));
        }
        stages
    }
}

/// The candidate names of a stage: GLSL first, then HLSL.
fn candidates(dir: &Path, node: &str, stage: ShaderStage) -> [PathBuf; 2] {
    let extension = stage.extension();
    [
        dir.join(format!("{node}.{extension}")),
        dir.join(format!("{node}.{extension}.hlsl")),
    ]
}

/// Finds the shaders of `node` in `dir`: `Err` names what is ambiguous or missing.
pub(crate) fn find_node_shaders(dir: &Path, node: &str) -> Result<NodeShaderFiles, String> {
    let find = |stage| -> Result<Option<PathBuf>, String> {
        let found: Vec<PathBuf> = candidates(dir, node, stage)
            .into_iter()
            .filter(|p| p.is_file())
            .collect();
        match found.len() {
            0 => Ok(None),
            1 => Ok(found.into_iter().next()),
            _ => Err(format!(
                "both {} and {} exist; keep one",
                found[0].display(),
                found[1].display()
            )),
        }
    };
    let files = NodeShaderFiles {
        compute: find(ShaderStage::Compute)?,
        vertex: find(ShaderStage::Vertex)?,
        fragment: find(ShaderStage::Fragment)?,
    };
    match (&files.compute, &files.vertex, &files.fragment) {
        (None, None, None) => Err(format!(
            "no shader in {} (looked for {node}.comp, {node}.frag and {node}.vert, each also with .hlsl)",
            dir.display()
        )),
        (Some(_), None, None) | (None, _, Some(_)) => Ok(files),
        (Some(_), _, _) => Err(format!("{node} has both a compute shader and graphics shaders; keep one kind")),
        (None, Some(_), None) => Err(format!("{node} has a vertex shader but no fragment shader ({node}.frag)")),
    }
}

/// Whether any shader file of `node` exists in `dir` (nodes without one are left unbound).
pub(crate) fn has_node_shaders(dir: &Path, node: &str) -> bool {
    [
        ShaderStage::Compute,
        ShaderStage::Vertex,
        ShaderStage::Fragment,
    ]
    .into_iter()
    .any(|stage| candidates(dir, node, stage).iter().any(|p| p.is_file()))
}

/// A file's identity for change detection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileStamp {
    path: PathBuf,
    stamp: Option<(SystemTime, u64)>,
}

impl FileStamp {
    /// The current stamp of `path` (`None` inside when it cannot be read).
    pub fn of(path: &Path) -> FileStamp {
        let stamp = std::fs::metadata(path)
            .ok()
            .and_then(|m| Some((m.modified().ok()?, m.len())));
        FileStamp {
            path: path.to_path_buf(),
            stamp,
        }
    }

    /// Whether the file changed since this stamp was taken.
    pub fn changed(&self) -> bool {
        FileStamp::of(&self.path) != *self
    }
}

/// Stamps of every file a node's compile read, plus the candidate names (a new or removed
/// variant also counts as a change).
#[derive(Clone, Debug, Default)]
pub(crate) struct Watch {
    stamps: Vec<FileStamp>,
    candidates: Vec<(PathBuf, bool)>,
}

impl Watch {
    /// Watches `files` and the candidate shader names of `node` in `dir`.
    pub fn new(dir: &Path, node: &str, files: impl IntoIterator<Item = PathBuf>) -> Watch {
        let stamps = files.into_iter().map(|path| FileStamp::of(&path)).collect();
        let candidates = [
            ShaderStage::Compute,
            ShaderStage::Vertex,
            ShaderStage::Fragment,
        ]
        .into_iter()
        .flat_map(|stage| candidates(dir, node, stage))
        .map(|path| {
            let exists = path.is_file();
            (path, exists)
        })
        .collect();
        Watch { stamps, candidates }
    }

    /// Whether something changed since the watch was made.
    pub fn changed(&self) -> bool {
        self.stamps.iter().any(FileStamp::changed)
            || self
                .candidates
                .iter()
                .any(|(path, existed)| path.is_file() != *existed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_compute_and_graphics_shaders() {
        let dir = super::super::tests::TempDir::new();
        let d = dir.path();
        std::fs::write(d.join("Blur.comp"), "").unwrap();
        std::fs::write(d.join("Sky.frag.hlsl"), "").unwrap();
        std::fs::write(d.join("Mesh.frag"), "").unwrap();
        std::fs::write(d.join("Mesh.vert"), "").unwrap();
        std::fs::write(d.join("Both.comp"), "").unwrap();
        std::fs::write(d.join("Both.comp.hlsl"), "").unwrap();
        std::fs::write(d.join("Half.vert"), "").unwrap();
        assert_eq!(
            find_node_shaders(d, "Blur").unwrap().stages(),
            vec![(ShaderStage::Compute, d.join("Blur.comp").as_path())]
        );
        assert_eq!(
            find_node_shaders(d, "Sky").unwrap().stages(),
            vec![(ShaderStage::Fragment, d.join("Sky.frag.hlsl").as_path())]
        );
        assert_eq!(find_node_shaders(d, "Mesh").unwrap().stages().len(), 2);
        assert_eq!(
            find_node_shaders(d, "Both").unwrap_err(),
            format!(
                "both {} and {} exist; keep one",
                d.join("Both.comp").display(),
                d.join("Both.comp.hlsl").display()
            )
        );
        assert_eq!(
            find_node_shaders(d, "Half").unwrap_err(),
            "Half has a vertex shader but no fragment shader (Half.frag)"
        );
        assert_eq!(
            find_node_shaders(d, "None").unwrap_err(),
            format!("no shader in {} (looked for None.comp, None.frag and None.vert, each also with .hlsl)", d.display())
        );
        assert!(has_node_shaders(d, "Half") && !has_node_shaders(d, "None"));
    }

    #[test]
    fn watch_sees_edits_and_new_variants() {
        let dir = super::super::tests::TempDir::new();
        let d = dir.path();
        std::fs::write(d.join("A.comp"), "one").unwrap();
        let watch = Watch::new(d, "A", vec![d.join("A.comp")]);
        assert!(!watch.changed());
        std::fs::write(d.join("A.comp"), "three").unwrap();
        assert!(watch.changed());
        let watch = Watch::new(d, "A", vec![d.join("A.comp")]);
        std::fs::write(d.join("A.frag"), "").unwrap();
        assert!(watch.changed());
    }
}

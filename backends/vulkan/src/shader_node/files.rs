//! Finding a node's shader files by name in the shader directory, and noticing when they (or
//! their includes) change so that the next frame recompiles them.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rpsl_shaders::{ShaderLanguage, ShaderStage};

use super::program::stage_name;

/// The shader files of one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NodeShaderFiles {
    /// A compute node's shader (`Foo.comp` or `Foo.comp.hlsl`).
    pub compute: Option<PathBuf>,
    /// A graphics node's vertex shader, if given (`Foo.vert` or `Foo.vert.hlsl`).
    pub vertex: Option<PathBuf>,
    /// A graphics node's fragment shader (`Foo.frag` or `Foo.frag.hlsl`).
    pub fragment: Option<PathBuf>,
    /// A graphics node's geometry shader (`Foo.geom` or `Foo.geom.hlsl`).
    pub geometry: Option<PathBuf>,
    /// A graphics node's tessellation control shader (`Foo.tesc` or `Foo.hull.hlsl`).
    pub tess_control: Option<PathBuf>,
    /// A graphics node's tessellation evaluation shader (`Foo.tese` or `Foo.domain.hlsl`).
    pub tess_evaluation: Option<PathBuf>,
}

impl NodeShaderFiles {
    /// The stages to compile, in pipeline order.
    pub fn stages(&self) -> Vec<(ShaderStage, &Path)> {
        let mut stages = Vec::new();
        if let Some(path) = &self.compute {
            stages.push((ShaderStage::Compute, path.as_path()));
        }
        let graphics = [
            (ShaderStage::Vertex, &self.vertex),
            (ShaderStage::TessControl, &self.tess_control),
            (ShaderStage::TessEvaluation, &self.tess_evaluation),
            (ShaderStage::Geometry, &self.geometry),
            (ShaderStage::Fragment, &self.fragment),
        ];
        for (stage, path) in graphics {
            if let Some(path) = path {
                stages.push((stage, path.as_path()));
            }
        }
        stages
    }
}

/// The candidate names of a stage: GLSL first, then HLSL.
fn candidates(dir: &Path, node: &str, stage: ShaderStage) -> [PathBuf; 2] {
    [ShaderLanguage::Glsl, ShaderLanguage::Hlsl]
        .map(|language| dir.join(format!("{node}.{}", stage.file_extension(language))))
}

/// How errors name a stage's files: `Foo.geom`, `Foo.hull.hlsl or Foo.tesc`.
fn stage_files(node: &str, stage: ShaderStage) -> String {
    match stage {
        ShaderStage::TessControl | ShaderStage::TessEvaluation => format!(
            "{node}.{} or {node}.{}",
            stage.file_extension(ShaderLanguage::Hlsl),
            stage.extension()
        ),
        _ => format!("{node}.{}", stage.extension()),
    }
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
        geometry: find(ShaderStage::Geometry)?,
        tess_control: find(ShaderStage::TessControl)?,
        tess_evaluation: find(ShaderStage::TessEvaluation)?,
    };
    let stages = files.stages();
    let has = |stage| stages.iter().any(|(s, _)| *s == stage);
    if stages.is_empty() {
        return Err(format!(
            "no shader in {} (looked for {node}.comp, {node}.frag and {node}.vert, each also with .hlsl)",
            dir.display()
        ));
    }
    if has(ShaderStage::Compute) {
        if stages.len() > 1 {
            return Err(format!(
                "{node} has both a compute shader and graphics shaders; keep one kind"
            ));
        }
        return Ok(files);
    }
    let first_without = |stage: ShaderStage, needed: ShaderStage| {
        (has(stage) && !has(needed)).then(|| {
            format!(
                "{node} has a {} shader but no {} shader ({})",
                stage_name(stage),
                stage_name(needed),
                stage_files(node, needed)
            )
        })
    };
    let rules = [
        (ShaderStage::Vertex, ShaderStage::Fragment),
        (ShaderStage::Geometry, ShaderStage::Fragment),
        (ShaderStage::TessControl, ShaderStage::Fragment),
        (ShaderStage::TessEvaluation, ShaderStage::Fragment),
        (ShaderStage::Geometry, ShaderStage::Vertex),
        (ShaderStage::TessControl, ShaderStage::TessEvaluation),
        (ShaderStage::TessEvaluation, ShaderStage::TessControl),
        (ShaderStage::TessControl, ShaderStage::Vertex),
    ];
    match rules
        .into_iter()
        .find_map(|(stage, needed)| first_without(stage, needed))
    {
        Some(message) => Err(message),
        None => Ok(files),
    }
}

/// Whether any shader file of `node` exists in `dir` (nodes without one are left unbound).
pub(crate) fn has_node_shaders(dir: &Path, node: &str) -> bool {
    ShaderStage::ALL
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
        let candidates = ShaderStage::ALL
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
    fn geometry_and_tessellation_stages_come_in_pipeline_order_and_need_their_partners() {
        let dir = super::super::tests::TempDir::new();
        let d = dir.path();
        for file in [
            "Full.vert.hlsl",
            "Full.hull.hlsl",
            "Full.domain.hlsl",
            "Full.geom.hlsl",
            "Full.frag.hlsl",
            "Glsl.vert",
            "Glsl.tesc",
            "Glsl.tese",
            "Glsl.frag",
            "NoVert.geom",
            "NoVert.frag",
            "NoDomain.vert",
            "NoDomain.hull.hlsl",
            "NoDomain.frag",
            "WrongName.vert",
            "WrongName.tesc.hlsl",
            "WrongName.frag",
        ] {
            std::fs::write(d.join(file), "").unwrap();
        }
        let stages = |node| -> Vec<(ShaderStage, String)> {
            find_node_shaders(d, node)
                .unwrap()
                .stages()
                .into_iter()
                .map(|(stage, path)| (stage, path.file_name().unwrap().to_string_lossy().into()))
                .collect()
        };
        assert_eq!(
            stages("Full"),
            vec![
                (ShaderStage::Vertex, "Full.vert.hlsl".to_string()),
                (ShaderStage::TessControl, "Full.hull.hlsl".to_string()),
                (ShaderStage::TessEvaluation, "Full.domain.hlsl".to_string()),
                (ShaderStage::Geometry, "Full.geom.hlsl".to_string()),
                (ShaderStage::Fragment, "Full.frag.hlsl".to_string()),
            ]
        );
        assert_eq!(stages("Glsl").len(), 4);
        assert_eq!(
            find_node_shaders(d, "NoVert").unwrap_err(),
            "NoVert has a geometry shader but no vertex shader (NoVert.vert)"
        );
        assert_eq!(
            find_node_shaders(d, "NoDomain").unwrap_err(),
            "NoDomain has a tessellation control shader but no tessellation evaluation shader (NoDomain.domain.hlsl or NoDomain.tese)"
        );
        // `.tesc.hlsl` is not a name of the hull shader: the node draws without tessellation.
        assert_eq!(stages("WrongName").len(), 2);
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

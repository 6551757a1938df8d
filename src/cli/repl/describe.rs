//! How the REPL shows a frame: the nodes an input added, the frame's figures, and the compiled
//! schedule with its barriers.

use std::fmt::Write as _;

use rpsl::runtime::{AccessRange, CompiledFrame, NodeId, RecordedGraph, ScalarType, ValueType};

/// The display name of a resource.
fn resource_name(graph: &RecordedGraph, index: usize) -> String {
    graph
        .resource_name(rpsl::runtime::ResourceId::from_index(index))
        .map_or_else(|| format!("r{index}"), str::to_string)
}

/// The nodes from `first` on (`+ node 3: Draw(rt = backbuffer)`), then the frame's figures.
pub fn summary(graph: &RecordedGraph, compiled: &CompiledFrame, first: usize) -> String {
    let mut text = String::new();
    let culled: std::collections::HashSet<NodeId> = compiled.culled.iter().copied().collect();
    for index in first..graph.nodes.len() {
        let node = NodeId(index as u32);
        let decl = graph.decl_of(node);
        let accesses = graph.node_accesses(node);
        let args = graph.node_args(node);
        let mut shown: Vec<String> = Vec::new();
        for (param_index, param) in decl.params.iter().enumerate() {
            if param.view_slots.is_empty() {
                let value = value_text(&param.value_type, args, param.offset as usize);
                shown.push(format!("{} = {value}", param.name));
                continue;
            }
            for access in accesses.iter().filter(|a| a.param as usize == param_index) {
                let mut view = resource_name(graph, access.resource.index());
                if let AccessRange::Texture(range) = access.range {
                    let desc = &graph.resources[access.resource.index()].desc;
                    if range.mip_count != desc.mip_levels {
                        let _ = write!(view, ".mips({}, {})", range.base_mip, range.mip_count);
                    }
                    if range.layer_count != desc.array_layers() {
                        let _ = write!(view, ".array({}, {})", range.base_layer, range.layer_count);
                    }
                }
                let slot = &param.view_slots[access.slot as usize].name;
                shown.push(format!("{slot} = {view}"));
            }
        }
        let views = shown;
        let _ = writeln!(
            text,
            "+ node {index}: {}({}){}",
            decl.name,
            views.join(", "),
            if culled.contains(&node) {
                "  [culled: nothing uses its results]"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(
        text,
        "frame: {} nodes ({} culled), {} resources, {} barrier batches, {} transitions, {} transient bytes",
        graph.nodes.len(),
        compiled.culled.len(),
        graph.resources.len(),
        compiled.batches,
        compiled.transitions,
        compiled.memory.transient_bytes
    );
    text
}

/// The compiled frame in execution order: each barrier batch before the node it precedes.
pub fn schedule(graph: &RecordedGraph, compiled: &CompiledFrame) -> String {
    let mut text = String::new();
    let write_batch = |text: &mut String, batch: &rpsl::runtime::BarrierBatch| {
        let barriers = batch.barriers.start as usize..batch.barriers.end as usize;
        for barrier in &compiled.barriers[barriers] {
            let resource = barrier.resource.index();
            let region = compiled.barrier_region(barrier);
            let range = if graph.resources[resource].desc.kind.is_texture() {
                let mut range = format!(
                    "mips {}..{}, layers {}..{}",
                    region.lo[0], region.hi[0], region.lo[1], region.hi[1]
                );
                if region.hi[2] - region.lo[2] != 1 || region.lo[2] != 0 {
                    let _ = write!(range, ", planes {}..{}", region.lo[2], region.hi[2]);
                }
                range
            } else {
                format!("bytes {}..{}", region.lo[0], region.hi[0])
            };
            let queues = if barrier.src_queue != barrier.dst_queue {
                format!(", queue {} -> {}", barrier.src_queue, barrier.dst_queue)
            } else {
                String::new()
            };
            let _ = writeln!(
                text,
                "      barrier {} ({range}): {:?} -> {:?}, stages {} -> {}, access {} -> {}{queues}",
                resource_name(graph, resource),
                barrier.old_layout,
                barrier.new_layout,
                barrier.src_stages,
                barrier.dst_stages,
                barrier.src_accesses,
                barrier.dst_accesses,
            );
        }
    };
    let mut batches = compiled.batch_list.iter().peekable();
    for (position, &node) in compiled.order.iter().enumerate() {
        while let Some(batch) = batches.next_if(|batch| batch.position as usize <= position) {
            write_batch(&mut text, batch);
        }
        let queue = compiled.node_queue.get(node.index()).copied().unwrap_or(0);
        let _ = writeln!(
            text,
            "  {position:>3}  {} (node {}, queue {queue})",
            graph.decl_of(node).name,
            node.0
        );
    }
    for batch in batches {
        write_batch(&mut text, batch);
    }
    let _ = writeln!(
        text,
        "memory: {} transient bytes ({} without aliasing)",
        compiled.memory.transient_bytes, compiled.memory.unaliased_bytes
    );
    text
}

/// A node argument's value as HLSL would write it: `0.5`, `float4(0, 0, 0, 1)`, `{1, 2}` for
/// arrays and structs; `?` past the argument block.
fn value_text(value_type: &ValueType, args: &[u8], at: usize) -> String {
    let list = |items: Vec<String>| items.join(", ");
    match value_type {
        ValueType::Scalar(scalar) => scalar_text(*scalar, args, at),
        ValueType::Vector(scalar, count) => {
            let items = (0..*count as usize)
                .map(|i| scalar_text(*scalar, args, at + i * scalar.size() as usize))
                .collect();
            format!("{}{count}({})", scalar.name(), list(items))
        }
        ValueType::Matrix(scalar, rows, cols) => {
            let items = (0..(*rows * *cols) as usize)
                .map(|i| scalar_text(*scalar, args, at + i * scalar.size() as usize))
                .collect();
            format!("{}{rows}x{cols}({})", scalar.name(), list(items))
        }
        ValueType::Array(elem, count) => {
            let count = match *count {
                0 => args.len().saturating_sub(at) / elem.stride().max(1) as usize,
                count => count as usize,
            };
            let items = (0..count)
                .map(|i| value_text(elem, args, at + i * elem.stride() as usize))
                .collect();
            format!("{{{}}}", list(items))
        }
        ValueType::Struct(ty) => {
            let items = ty
                .fields
                .iter()
                .map(|f| value_text(&f.value_type, args, at + f.offset as usize))
                .collect();
            format!("{{{}}}", list(items))
        }
        _ => "(view)".to_string(),
    }
}

fn scalar_text(scalar: ScalarType, args: &[u8], at: usize) -> String {
    fn bytes<const N: usize>(args: &[u8], at: usize) -> Option<[u8; N]> {
        args.get(at..at.checked_add(N)?)?.try_into().ok()
    }
    let text = match scalar {
        ScalarType::Bool => bytes::<4>(args, at).map(|b| (u32::from_le_bytes(b) != 0).to_string()),
        ScalarType::I32 => bytes::<4>(args, at).map(|b| i32::from_le_bytes(b).to_string()),
        ScalarType::U32 => bytes::<4>(args, at).map(|b| u32::from_le_bytes(b).to_string()),
        ScalarType::I64 => bytes::<8>(args, at).map(|b| i64::from_le_bytes(b).to_string()),
        ScalarType::U64 => bytes::<8>(args, at).map(|b| u64::from_le_bytes(b).to_string()),
        ScalarType::F32 => bytes::<4>(args, at).map(|b| f32::from_le_bytes(b).to_string()),
        ScalarType::F64 => bytes::<8>(args, at).map(|b| f64::from_le_bytes(b).to_string()),
    };
    text.unwrap_or_else(|| "?".to_string())
}

/// `json` (compact, valid JSON) indented by two spaces per level, keys in their order; arrays
/// of numbers stay on one line.
pub fn pretty_json(json: &str) -> String {
    let mut text = String::with_capacity(json.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    // Brackets whose contents are laid out one item per line.
    let mut multiline: Vec<bool> = Vec::new();
    let newline = |text: &mut String, depth: usize| {
        text.push('\n');
        text.extend(std::iter::repeat_n("  ", depth));
    };
    let bytes = json.as_bytes();
    for (at, c) in json.char_indices() {
        if in_string {
            text.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                text.push(c);
            }
            '{' | '[' => {
                text.push(c);
                // An array holding only numbers (and commas) stays on its line.
                let flat = c == '[' && {
                    let rest = &bytes[at + 1..];
                    let end = rest.iter().position(|&b| b == b']').unwrap_or(rest.len());
                    rest[..end]
                        .iter()
                        .all(|b| b.is_ascii_digit() || b".,-+eE ".contains(b))
                };
                multiline.push(!flat);
                if !flat {
                    depth += 1;
                    let empty = matches!(bytes.get(at + 1), Some(b'}' | b']'));
                    if !empty {
                        newline(&mut text, depth);
                    }
                }
            }
            '}' | ']' => {
                if multiline.pop().unwrap_or(false) {
                    depth = depth.saturating_sub(1);
                    let empty = matches!(bytes.get(at.wrapping_sub(1)), Some(b'{' | b'['));
                    if !empty {
                        newline(&mut text, depth);
                    }
                }
                text.push(c);
            }
            ',' if multiline.last().copied().unwrap_or(false) => {
                text.push(',');
                newline(&mut text, depth);
            }
            ',' => text.push_str(", "),
            ':' => text.push_str(": "),
            _ => text.push(c),
        }
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_indented_in_key_order() {
        assert_eq!(
            pretty_json(r#"{"b":1,"a":{"s":"x,{y}","e":[],"o":{}},"n":[1,2.5,-3],"l":[{"k":true}]}"#),
            "{\n  \"b\": 1,\n  \"a\": {\n    \"s\": \"x,{y}\",\n    \"e\": [],\n    \"o\": {}\n  },\n  \"n\": [1, 2.5, -3],\n  \"l\": [\n    {\n      \"k\": true\n    }\n  ]\n}\n"
        );
    }
}

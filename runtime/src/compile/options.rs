//! What the frame compiler is asked to do: the options of a compile.

/// The scheduling preference (`--schedule`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum SchedulePreference {
    /// Batch barriers by dependency depth, group queue classes, then save memory.
    #[default]
    Default,
    /// Keep call order.
    ProgramOrder,
    /// Minimise live transient memory.
    Memory,
    /// [`SchedulePreference::Default`], then up to 5% more levels spent on lowering the peak of
    /// live transient memory (docs/cli.md, "Schedules"). Costs more compile time on wide
    /// graphs; the default schedule keeps the plain levels.
    Balanced,
    /// [`SchedulePreference::Balanced`]'s batch budget, with the levels and the placement
    /// searched for the least transient memory under a fixed work budget (docs/cli.md,
    /// "Schedules"). Far more compile time than the others: meant for a compile whose result
    /// is kept (the compile cache, a refinement of a steady frame), not for every frame.
    Searched,
}

/// Options of the frame compiler.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct CompileOptions {
    /// Scheduling preference.
    pub schedule: SchedulePreference,
    /// Eliminate dead nodes (`--no-cull` turns this off).
    pub cull: bool,
    /// Reuse the compiled frame when the recorded graph did not change.
    pub cache: bool,
    /// Place `async` compute nodes on a separate compute queue.
    pub async_compute: bool,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            schedule: SchedulePreference::Default,
            cull: true,
            cache: true,
            async_compute: true,
        }
    }
}

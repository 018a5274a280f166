//! Chrome trace-event output: one complete (`"ph": "X"`) event per instruction, a
//! process per core and a thread per pipe, loadable in `chrome://tracing` or Perfetto.
//! Timestamps and durations are cycles (the viewer labels them microseconds).

use std::io::Write;
use std::path::Path;

use npu_core::program::Pipe;
use serde::{Deserialize, Serialize};

/// Every executed instruction of a simulation, with its start and duration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// In the order the simulator executed them.
    pub events: Vec<TraceEvent>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// One executed instruction.
pub struct TraceEvent {
    /// The instruction as the program listing shows it.
    pub name: String,
    /// The core that ran it.
    pub core: u32,
    /// The pipe that ran it.
    pub pipe: Pipe,
    /// Cycles. A wait's duration is 0; the stall before it shows as the gap.
    pub start: f64,
    /// Cycles it took.
    pub duration: f64,
}

impl Trace {
    /// The trace-event JSON: `{"traceEvents": [...]}` with thread and process names.
    pub fn to_json(&self) -> String {
        let mut events = Vec::with_capacity(self.events.len() + 16);
        let mut cores: Vec<u32> = self.events.iter().map(|e| e.core).collect();
        cores.sort_unstable();
        cores.dedup();
        for &core in &cores {
            events.push(serde_json::json!({
                "name": "process_name", "ph": "M", "pid": core, "tid": 0,
                "args": { "name": format!("core {core}") },
            }));
            for pipe in Pipe::ALL {
                events.push(serde_json::json!({
                    "name": "thread_name", "ph": "M", "pid": core, "tid": pipe.index(),
                    "args": { "name": pipe.name() },
                }));
                events.push(serde_json::json!({
                    "name": "thread_sort_index", "ph": "M", "pid": core, "tid": pipe.index(),
                    "args": { "sort_index": pipe.index() },
                }));
            }
        }
        for event in &self.events {
            events.push(serde_json::json!({
                "name": event.name,
                "cat": event.pipe.name(),
                "ph": "X",
                "ts": event.start,
                "dur": event.duration,
                "pid": event.core,
                "tid": event.pipe.index(),
            }));
        }
        serde_json::json!({ "traceEvents": events, "displayTimeUnit": "ns" }).to_string()
    }

    /// Writes the JSON to `path` atomically: to a temporary file beside it, then renamed.
    /// A link is written through (the file it points to is replaced, the link stays);
    /// a FIFO, a device or a directory is refused ([`npu_core::file::destination`]).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let destination = npu_core::file::destination(path)?;
        let path = destination.as_path();
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "trace.json".into());
        let temporary = path.with_file_name(format!(".{file_name}.{}.tmp", std::process::id()));
        let result = (|| {
            let mut file = std::fs::File::create(&temporary)?;
            file.write_all(self.to_json().as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&temporary, path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        result
    }
}

//! The report as text: the lines `autotune` prints and snapshots compare.

use std::fmt;

use super::{Report, Traffic};

/// The traffic lines of a report: global memory against the minimum, then each
/// on-chip level's bytes in and out, when any moved.
fn write_traffic(f: &mut fmt::Formatter<'_>, t: &Traffic) -> fmt::Result {
    let times = |moved: u64, minimum: u64| {
        if minimum > 0 {
            format!("{:.2}x", moved as f64 / minimum as f64)
        } else {
            "-".into()
        }
    };
    writeln!(
        f,
        "gm read {} B ({} the minimum {} B), gm written {} B ({} the minimum {} B)",
        t.gm_read,
        times(t.gm_read, t.minimum_gm_read),
        t.minimum_gm_read,
        t.gm_written,
        times(t.gm_written, t.minimum_gm_written),
        t.minimum_gm_written
    )?;
    let mut moved = Vec::new();
    for (name, bytes) in [
        ("ub in", t.ub_in),
        ("ub out", t.ub_out),
        ("l1 in", t.l1_in),
        ("l1 out", t.l1_out),
        ("l0a in", t.l0a_in),
        ("l0b in", t.l0b_in),
        ("l0c out", t.l0c_out),
    ] {
        if bytes > 0 {
            moved.push(format!("{name} {bytes} B"));
        }
    }
    if !moved.is_empty() {
        writeln!(f, "{}", moved.join(", "))?;
    }
    Ok(())
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}.{} on {}: {} cycles on {} of {} cores (slowest core {}), {} instructions",
            self.kernel,
            self.schedule,
            self.target,
            self.total_cycles,
            self.cores,
            self.requested_cores,
            self.critical_core,
            self.instructions
        )?;
        writeln!(
            f,
            "roofline {} cycles ({}-bound), efficiency {:.1}%; machine roofline {} cycles, {:.1}%; attainable {} cycles, {:.1}%",
            self.roofline_cycles,
            self.roofline_bound,
            self.efficiency * 100.0,
            self.machine_roofline_cycles,
            self.machine_efficiency * 100.0,
            self.attainable_cycles,
            self.attainable_efficiency * 100.0
        )?;
        writeln!(
            f,
            "pipe  instructions       busy      stall       idle   busy%  stall%"
        )?;
        for p in &self.pipes {
            writeln!(
                f,
                "{:<5} {:>12} {:>10} {:>10} {:>10} {:>6.1}% {:>6.1}%",
                p.pipe.name(),
                p.instructions,
                p.busy,
                p.stall,
                p.idle,
                p.busy_ratio * 100.0,
                p.stall_ratio * 100.0
            )?;
        }
        write_traffic(f, &self.traffic)?;
        let used: Vec<String> = self
            .memory
            .iter()
            .filter(|m| m.peak > 0)
            .map(|m| {
                format!(
                    "{} {} of {} B ({:.1}%)",
                    m.level,
                    m.peak,
                    m.capacity,
                    m.peak as f64 * 100.0 / m.capacity as f64
                )
            })
            .collect();
        writeln!(
            f,
            "peak {}",
            if used.is_empty() {
                "none".to_string()
            } else {
                used.join(", ")
            }
        )?;
        writeln!(
            f,
            "memory-bound ratio {:.2}, vector score {:.1}%",
            self.memory_bound_ratio,
            self.vector_score * 100.0
        )?;
        writeln!(f, "bottleneck {}: {}", self.bottleneck, self.symptom)
    }
}

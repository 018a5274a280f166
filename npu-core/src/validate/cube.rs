//! The cube rules of the validator: an MTE1 load into L0A or L0B, a `mmad` within the
//! program's block, and a dtype the target's cube multiplies (see the parent module for
//! the rules).

use super::{Rule, Site, Validator, rows_end};
use crate::dtype::Dtype;
use crate::program::Op;
use crate::target::Level;

impl Validator<'_> {
    /// An MTE1 load: into L0A or L0B, from L1, in a dtype the cube takes, both row
    /// ranges inside their levels and the destination aligned.
    pub(super) fn load_l0(&mut self, site: Site<'_>) {
        let Op::LoadL0 {
            level,
            source,
            source_row_bytes,
            dest,
            dest_row_bytes,
            rows,
            cols,
            dtype,
        } = *site.op
        else {
            return;
        };
        if !matches!(level, Level::L0a | Level::L0b) {
            let message = format!("loads into {level}, which MTE1 does not feed");
            self.report(Rule::Unit, Some(site), message);
        }
        self.cube_dtype(site, dtype);
        let row = u64::from(cols) * dtype.size();
        let rows = u64::from(rows);
        let source_end = rows_end(source, source_row_bytes, rows, row);
        let dest_end = rows_end(dest, dest_row_bytes, rows, row);
        self.range(site, Level::L1, u64::from(source), source_end);
        self.range(site, level, u64::from(dest), dest_end);
        self.aligned(site, level, u64::from(dest));
    }

    pub(super) fn mmad(
        &mut self,
        site: Site,
        [a, b, c]: [u32; 3],
        [m, n, k]: [u32; 3],
        dtype: Dtype,
    ) {
        self.cube_dtype(site, dtype);
        let Some([bm, bn, bk]) = self.program.cube else {
            return;
        };
        let [m, n, k] = [m, n, k].map(u64::from);
        if m > bm || n > bn || k > bk {
            let message = format!("multiplies {m}x{n}x{k}, more than the {bm}x{bn}x{bk} block");
            self.report(Rule::Unit, Some(site), message);
        }
        let size = dtype.size();
        let blocks = [
            (Level::L0a, a, bm * bk * size),
            (Level::L0b, b, bk * bn * size),
            (Level::L0c, c, bm * bn * dtype.accumulator().size()),
        ];
        for (level, address, bytes) in blocks {
            let address = u64::from(address);
            self.range(site, level, address, address + bytes);
            self.aligned(site, level, address);
        }
    }

    fn cube_dtype(&mut self, site: Site, dtype: Dtype) {
        let message = match &self.target.cube {
            None => format!("`{}` has no cube unit", self.target.name),
            Some(cube) if !cube.dtypes.contains(&dtype) => {
                let names: Vec<&str> = cube.dtypes.iter().map(|d| d.name()).collect();
                format!(
                    "feeds the cube {dtype}, but the cube of `{}` multiplies {}",
                    self.target.name,
                    names.join(", ")
                )
            }
            Some(_) => return,
        };
        self.report(Rule::Unit, Some(site), message);
    }
}

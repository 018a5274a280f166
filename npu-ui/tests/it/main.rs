//! The macro's diagnostics, one binary: the cases through rustc (`ui`), the string API
//! reporting the same diagnostics at the same positions with the same help
//! (`ui_positions`), and rendered diagnostics byte-identical across processes
//! (`determinism`).

mod determinism;
mod ui;
mod ui_positions;

//! The `npu_kernel!` macro's diagnostics through the real compiler. This crate holds
//! only tests (`tests/it`) and their cases (`tests/ui`: `fail/<code>/*.rs` with the
//! reviewed `.stderr` rustc prints, `pass/*.rs`, target files in `targets/`).

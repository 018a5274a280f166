//! Why an instruction could not run. The machine, the vector unit and its per-element
//! instructions all return it, so it sits below all three.

/// Why an instruction could not run: the program is broken, or a gather met an index
/// outside its table (the data's fault, not the program's).
#[derive(Debug)]
pub(crate) enum Fault {
    Bad(String),
    Index(npu_core::scalar::IndexError),
}

impl From<String> for Fault {
    fn from(message: String) -> Fault {
        Fault::Bad(message)
    }
}

impl From<&str> for Fault {
    fn from(message: &str) -> Fault {
        Fault::Bad(message.to_string())
    }
}

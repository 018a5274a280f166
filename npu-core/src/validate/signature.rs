//! The signature rule of the validator: every instruction that names a tensor agrees
//! with the program's signature, so a backend can declare its arguments and element
//! types from the signature alone (see the parent module for the rules).

use super::{Rule, Site, Validator};
use crate::dtype::Dtype;
use crate::ir::Role;
use crate::program::{Op, Operand, Pipe};

impl Validator<'_> {
    /// The signature against the tensor names, then every instruction against it.
    pub(super) fn signature(&mut self) {
        let program = self.program;
        let names: Vec<&str> = program.signature.iter().map(|t| t.name.as_str()).collect();
        if names != program.tensors {
            let message = format!(
                "the signature names tensors [{}] but the program has [{}]",
                names.join(", "),
                program.tensors.join(", ")
            );
            self.report(Rule::Signature, None, message);
            return;
        }
        for (class, code) in program.classes.iter().enumerate() {
            for pipe in Pipe::ALL {
                for instr in code.stream(pipe) {
                    let site = Site {
                        class: class as u32,
                        pipe,
                        op: &instr.op,
                    };
                    self.signature_of(site);
                }
            }
        }
    }

    /// One instruction against the signature.
    fn signature_of(&mut self, site: Site) {
        match *site.op {
            Op::CopyIn { tensor, shape, .. } => {
                self.tensor_use(site, tensor, Role::Input, None);
                self.element_bytes(site, tensor, shape);
            }
            Op::CopyOut { tensor, shape, .. } => {
                self.tensor_use(site, tensor, Role::Output, None);
                self.element_bytes(site, tensor, shape);
            }
            Op::Fixpipe { tensor, dtype, .. } => {
                self.tensor_use(site, tensor, Role::Output, Some(dtype));
            }
            Op::Vector(v) => {
                for operand in v.src {
                    if let Operand::Param(tensor) = operand {
                        self.parameter(site, tensor);
                    }
                }
            }
            _ => {}
        }
    }

    /// `tensor` exists, has `role` and, when given, `dtype`.
    fn tensor_use(&mut self, site: Site, tensor: u16, role: Role, dtype: Option<Dtype>) {
        let Some(declared) = self.program.signature.get(usize::from(tensor)) else {
            let message = format!("tensor {tensor} is not in the signature");
            self.report(Rule::Signature, Some(site), message);
            return;
        };
        if declared.role != role {
            let message = format!(
                "`{}` is {:?} in the signature but the instruction uses it as {role:?}",
                declared.name, declared.role
            );
            self.report(Rule::Signature, Some(site), message);
        }
        if let Some(dtype) = dtype.filter(|d| *d != declared.dtype) {
            let message = format!(
                "`{}` is {} in the signature but the instruction writes {}",
                declared.name,
                declared.dtype.name(),
                dtype.name()
            );
            self.report(Rule::Signature, Some(site), message);
        }
    }

    /// A copy moves elements of its tensor's size.
    fn element_bytes(&mut self, site: Site, tensor: u16, shape: u32) {
        let program = self.program;
        let (Some(declared), Some(copy)) = (
            program.signature.get(usize::from(tensor)),
            program.copies.get(shape as usize),
        ) else {
            return;
        };
        if copy.element_bytes != declared.dtype.size() {
            let message = format!(
                "`{}` has {}-byte elements ({}) but the copy moves {}-byte elements",
                declared.name,
                declared.dtype.size(),
                declared.dtype.name(),
                copy.element_bytes
            );
            self.report(Rule::Signature, Some(site), message);
        }
    }

    /// A scalar-parameter operand names a rank-0 input.
    fn parameter(&mut self, site: Site, tensor: u16) {
        let scalar = self
            .program
            .signature
            .get(usize::from(tensor))
            .is_some_and(|t| t.role == Role::Input && t.shape.is_empty());
        if !scalar {
            let message = format!("parameter operand ${tensor} does not name a scalar input");
            self.report(Rule::Signature, Some(site), message);
        }
    }
}

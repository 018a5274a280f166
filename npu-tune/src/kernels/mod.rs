//! The bundled kernels. [`SUITE`] is what the tuner works on by default: one of each
//! kind an NPU kernel engineer meets (elementwise, a reduction with a tail, a fused
//! multi-statement softmax, a windowed convolution, a transcendental activation,
//! matmul). [`all`] is the whole suite, by category, each kernel with the
//! hand schedule a first draft would have; `autotune --all` tunes it and
//! `autotune --all --suite-table docs/suite.md` writes its results table.

/// `bundled!(Category: kernel, ...)`: a module's `KERNELS`, each kernel module's
/// name, checked form and host reference under one category.
macro_rules! bundled {
    ($category:ident: $($kernel:ident),+ $(,)?) => {
        /// This module's kernels, in the order the suite lists them.
        pub(super) const KERNELS: &[$crate::kernels::Bundled] = &[$($crate::kernels::Bundled {
            name: $kernel::NAME,
            category: $crate::kernels::Category::$category,
            kernel: $kernel::kernel,
            reference: $kernel::reference_host,
        }),+];
    };
}

mod activation;
mod bits;
mod cast;
mod convolution;
mod elementwise;
mod math;
mod matmul_family;
mod movement;
mod normalisation;
mod pooling;
mod reduction;

use serde::{Deserialize, Serialize};

use crate::evaluate::Problem;
use npu_core::host::HostTensor;
use npu_macros::npu_kernel;

npu_kernel! {
    /// y = a * b + c
    kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {
        y[i] = a[i] * b[i] + c[i];
    }
    target npueval_demo;

    schedule hand {
        split i by 1024;
        stage a, b, c, y in ub depth 1;
    }
}

npu_kernel! {
    /// Row sums of a matrix whose rows (217 elements) no aligned tile divides.
    kernel rowsum(x: [f32; 512, 217]) -> y: [f32; 512] {
        y[i] = sum[k](x[i, k]);
    }
    target ascend910b;

    schedule hand {
        parallel i over 8 cores;
        split i by 8;
        stage x, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    kernel softmax(x: [f32; 256, 1024]) -> y: [f32; 256, 1024] {
        let m[i] = max[k](x[i, k]);
        let e[i, k] = exp(x[i, k] - m[i]);
        let s[i] = sum[k](e[i, k]);
        y[i, k] = e[i, k] / s[i];
    }
    target ascend910b;
    schedule hand {
        parallel i over 8 cores;
        split i by 2;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// 8 input channels, 16 filters of width 3, valid.
    kernel conv1d(x: [f16; 8, 1026], w: [f16; 16, 8, 3]) -> y: [f16; 16, 1024] {
        y[o, t] = sum[c, k](x[c, t + k] * w[o, c, k]);
    }
    target ascend910b;
    schedule hand {
        parallel o over 8 cores;
        split o by 1;
        split c by 1;
        stage x, w, y in ub depth 1;
        tail pad;
    }
}

npu_kernel! {
    /// The sigmoid approximation of GELU: x * sigmoid(1.702 x).
    kernel gelu(x: [f16; 131072]) -> y: [f16; 131072] {
        y[i] = x[i] * sigmoid(x[i] * 1.702);
    }
    target ascend310p;

    schedule hand {
        parallel i over 2 cores;
        split i by 1024;
        stage x, y in ub depth 1;
    }
}

npu_kernel! {
    /// c = a x b on the cube unit, accumulating in f32.
    kernel matmul(a: [f16; 128, 256], b: [f16; 256, 256]) -> c: [f32; 128, 256] {
        c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
    }
    target ascend910b;

    schedule hand {
        split k by 64;
        cube m by 32, n by 32, k by 32;
        stage a, b in l1 depth 1;
        stage a in l0a depth 1;
        stage b in l0b depth 1;
        stage c in l0c depth 1;
    }
}

/// The kinds of kernel the suite covers, in the order tables list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Elementwise nonlinearities (relu, gelu, silu, ...).
    Activation,
    /// One function of each element (exp, rsqrt, sin, ...).
    UnaryMath,
    /// Binary and scalar-operand arithmetic, comparisons and selects.
    Elementwise,
    /// Bit operations on integer tensors.
    Bits,
    /// Conversions between dtypes, saturating ones included.
    Cast,
    /// Reductions, arg reductions and scans along an axis.
    Reduction,
    /// Softmax, layernorm and rmsnorm, fused with `let` intermediates.
    Normalisation,
    /// Max and average pooling over 1-d and 2-d windows.
    Pooling,
    /// 1-d and 2-d convolutions on the vector unit.
    Convolution,
    /// Matrix products on the cube, and matrix-vector products on the vector unit.
    Matmul,
    /// Copies, transposes, slices, broadcasts, padding and gathers.
    Movement,
}

impl Category {
    /// Every category, in table order (the declaration order, which `Ord` follows too).
    pub const ALL: [Category; 11] = [
        Category::Activation,
        Category::UnaryMath,
        Category::Elementwise,
        Category::Bits,
        Category::Cast,
        Category::Reduction,
        Category::Normalisation,
        Category::Pooling,
        Category::Convolution,
        Category::Matmul,
        Category::Movement,
    ];

    /// The name tables and reports print (`unary math`, `data movement`); also the
    /// drafting evaluation's group name.
    pub fn name(self) -> &'static str {
        match self {
            Category::Activation => "activation",
            Category::UnaryMath => "unary math",
            Category::Elementwise => "elementwise",
            Category::Bits => "bits",
            Category::Cast => "cast",
            Category::Reduction => "reduction",
            Category::Normalisation => "normalisation",
            Category::Pooling => "pooling",
            Category::Convolution => "convolution",
            Category::Matmul => "matmul",
            Category::Movement => "data movement",
        }
    }
}

/// A bundled kernel: its name, category, checked form and host reference.
#[derive(Clone, Copy, Debug)]
pub struct Bundled {
    /// The kernel's name, unique in the suite.
    pub name: &'static str,
    /// The kind of kernel it is.
    pub category: Category,
    /// The kernel, checked on its own target with its hand schedules.
    pub kernel: fn() -> &'static npu_core::CheckedKernel,
    /// The host reference: the outputs the kernel must compute from inputs in signature
    /// order.
    pub reference: fn(&[HostTensor]) -> Result<Vec<HostTensor>, npu_core::scalar::InputError>,
}

/// Every bundled kernel, in the order the tuner runs them.
pub const SUITE: [Bundled; 6] = [
    Bundled {
        name: vmla::NAME,
        category: Category::Elementwise,
        kernel: vmla::kernel,
        reference: vmla::reference_host,
    },
    Bundled {
        name: rowsum::NAME,
        category: Category::Reduction,
        kernel: rowsum::kernel,
        reference: rowsum::reference_host,
    },
    Bundled {
        name: softmax::NAME,
        category: Category::Normalisation,
        kernel: softmax::kernel,
        reference: softmax::reference_host,
    },
    Bundled {
        name: conv1d::NAME,
        category: Category::Convolution,
        kernel: conv1d::kernel,
        reference: conv1d::reference_host,
    },
    Bundled {
        name: gelu::NAME,
        category: Category::Activation,
        kernel: gelu::kernel,
        reference: gelu::reference_host,
    },
    Bundled {
        name: matmul::NAME,
        category: Category::Matmul,
        kernel: matmul::kernel,
        reference: matmul::reference_host,
    },
];

/// The whole suite: the default kernels, then every category's, sorted by category
/// (stable, so each category keeps its modules' order).
pub fn all() -> Vec<Bundled> {
    let mut all: Vec<Bundled> = SUITE
        .iter()
        .chain(activation::KERNELS)
        .chain(math::KERNELS)
        .chain(elementwise::KERNELS)
        .chain(bits::KERNELS)
        .chain(cast::KERNELS)
        .chain(reduction::KERNELS)
        .chain(normalisation::KERNELS)
        .chain(pooling::KERNELS)
        .chain(convolution::KERNELS)
        .chain(matmul_family::KERNELS)
        .chain(movement::KERNELS)
        .copied()
        .collect();
    all.sort_by_key(|bundled| bundled.category);
    all
}

impl Bundled {
    /// Finds a kernel of the suite by name.
    pub fn find(name: &str) -> Option<Bundled> {
        all().into_iter().find(|b| b.name == name)
    }

    /// The tuning problem: seeded random inputs and the reference outputs on them.
    /// `target` retargets the kernel (its hand schedules must still check there).
    pub fn problem(&self, seed: u64, target: Option<&npu_core::Target>) -> Result<Problem, String> {
        let mut kernel = (self.kernel)().clone();
        if let Some(target) = target {
            kernel = npu_core::check_source(&kernel.source, target).map_err(|diagnostics| {
                format!(
                    "kernel `{}` does not check on target `{}`:\n{}",
                    self.name,
                    target.name,
                    diagnostics.render(&kernel.source)
                )
            })?;
        }
        let inputs = kernel.random_inputs(seed);
        let expected = (self.reference)(&inputs).map_err(|e| e.to_string())?;
        Ok(Problem::new(kernel, inputs, expected))
    }
}

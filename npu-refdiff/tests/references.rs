//! Every generated kernel's `npu_kernel!` host reference agrees bit for bit with the
//! simulator's IR interpreter (`npu::sim::reference`) on random and edge data (any NaN
//! equals any NaN; +0 and −0 differ).

use npu_refdiff::KERNELS;

#[test]
fn generated_host_references_match_the_interpreter_bit_for_bit() {
    assert!(KERNELS.len() >= 200, "only {} kernels", KERNELS.len());
    let mut failures = Vec::new();
    for (name, kernel, reference_host) in KERNELS {
        let kernel = kernel();
        for (data, inputs) in [
            ("random", kernel.random_inputs(5)),
            ("edge", kernel.edge_inputs(7)),
        ] {
            let interpreted = npu::sim::reference(kernel, &inputs).expect("valid inputs");
            let compiled = reference_host(&inputs).expect("valid inputs");
            for (want, got) in interpreted.iter().zip(&compiled) {
                let (w, g) = (want.values(), got.values());
                let wrong = w
                    .iter()
                    .zip(&g)
                    .position(|(a, b)| !(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())));
                if let Some(at) = wrong {
                    failures.push(format!(
                        "{name} on {data} data: element {at}: interpreter {}, host reference {}\n{}",
                        w[at], g[at], kernel.source
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

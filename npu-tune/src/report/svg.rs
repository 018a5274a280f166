//! `KERNEL.svg`: the convergence plot, best cycles against evaluations.

use std::fmt::Write as _;

use crate::record::{Convergence, KernelResult};

/// `KERNEL.svg`: best cycles so far against evaluations, one step line per generator,
/// with dashed lines for the hand schedule and the roofline.
pub fn render_svg(result: &KernelResult) -> String {
    Plot::new(result).render()
}

/// Text for SVG: the five XML special characters escaped.
fn xml_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters other than tab and newline are not allowed in XML 1.0.
            c if c.is_control() && c != '\t' && c != '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The convergence plot's geometry and data.
struct Plot<'a> {
    result: &'a KernelResult,
    /// Evaluations at the right end of the x axis, and the tick step.
    x_top: u64,
    x_step: u64,
    /// Cycles at the top of the y axis, and the tick step.
    y_top: u64,
    y_step: u64,
    /// The series, the main generator first.
    series: Vec<&'a Convergence>,
}

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 560.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 380.0;
/// Line colours, the main generator's first (a colour-blind-safe palette).
const COLOURS: [&str; 6] = [
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00",
];
/// Characters that fit the title and a legend name (before its cycles) at their sizes.
const TITLE_CHARS: usize = 84;
const LEGEND_CHARS: usize = 16;
const HAND_COLOUR: &str = "#555555";
const ROOFLINE_COLOUR: &str = "#c00000";

impl<'a> Plot<'a> {
    fn new(result: &'a KernelResult) -> Self {
        let mut series: Vec<&Convergence> = result
            .convergence
            .iter()
            .filter(|series| !series.points.is_empty())
            .collect();
        // A stable sort keeps the others in their recorded order.
        series.sort_by_key(|series| series.generator != result.generator);

        let last_evaluation = series
            .iter()
            .flat_map(|series| series.points.iter().map(|&(evaluations, _)| evaluations))
            .max()
            .unwrap_or(0)
            .max(1);
        let x_step = nice_step(last_evaluation as f64 / 6.0);
        let x_top = last_evaluation.div_ceil(x_step) * x_step;

        // The early points of a search can be many times the hand schedule, and would
        // squash the interesting part of the plot; above three times the hand schedule
        // (or the worst final value, if higher) the lines are clipped at the top edge.
        let highest_point = series
            .iter()
            .flat_map(|series| series.points.iter().map(|&(_, cycles)| cycles))
            .max()
            .unwrap_or(0);
        let highest_final = series
            .iter()
            .filter_map(|series| series.points.last().map(|&(_, cycles)| cycles))
            .max()
            .unwrap_or(0);
        let hand = result.baselines.hand.cycles.unwrap_or(0);
        let cap = hand.max(highest_final).saturating_mul(3);
        let highest = highest_point
            .min(if cap > 0 { cap } else { highest_point })
            .max(hand)
            .max(result.roofline_cycles)
            .max(1);
        let y_step = nice_step(highest as f64 * 1.05 / 6.0);
        let y_top = (highest + highest / 20).div_ceil(y_step).max(1) * y_step;

        Plot {
            result,
            x_top,
            x_step,
            y_top,
            y_step,
            series,
        }
    }

    fn x(&self, evaluations: u64) -> f64 {
        LEFT + (RIGHT - LEFT) * evaluations as f64 / self.x_top as f64
    }

    fn y(&self, cycles: u64) -> f64 {
        BOTTOM - (BOTTOM - TOP) * cycles as f64 / self.y_top as f64
    }

    fn render(&self) -> String {
        let result = self.result;
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(
            svg,
            r#"<title>{}: best cycles by evaluations</title>"#,
            xml_text(&result.kernel)
        );
        let _ = writeln!(
            svg,
            r#"<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<clipPath id="plot"><rect x="{LEFT}" y="{TOP}" width="{}" height="{}"/></clipPath>"#,
            RIGHT - LEFT,
            BOTTOM - TOP
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="28" text-anchor="middle" font-size="15" font-weight="bold">{}</text>"#,
            WIDTH / 2.0,
            xml_text(&shorten(
                &format!(
                    "{} on {}: best cycles by evaluations",
                    result.kernel, result.target
                ),
                TITLE_CHARS
            ))
        );
        self.render_axes(&mut svg);
        self.render_reference_lines(&mut svg);
        self.render_series(&mut svg);
        if self.series.is_empty() {
            let _ = writeln!(
                svg,
                r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#777777">no schedule ran</text>"##,
                (LEFT + RIGHT) / 2.0,
                (TOP + BOTTOM) / 2.0
            );
        }
        self.render_legend(&mut svg);
        svg.push_str("</svg>\n");
        svg
    }

    /// Grid lines, ticks, tick labels, the axes and their titles.
    fn render_axes(&self, svg: &mut String) {
        svg.push_str(r##"<g stroke="#e6e6e6" stroke-width="1">"##);
        svg.push('\n');
        for cycles in (self.y_step..=self.y_top).step_by(self.y_step as usize) {
            let y = self.y(cycles);
            let _ = writeln!(
                svg,
                r#"<line x1="{LEFT}" y1="{y:.1}" x2="{RIGHT}" y2="{y:.1}"/>"#
            );
        }
        svg.push_str("</g>\n");

        svg.push_str(r##"<g stroke="#333333" stroke-width="1">"##);
        svg.push('\n');
        for evaluations in (0..=self.x_top).step_by(self.x_step as usize) {
            let x = self.x(evaluations);
            let _ = writeln!(
                svg,
                r#"<line x1="{x:.1}" y1="{BOTTOM}" x2="{x:.1}" y2="{}"/>"#,
                BOTTOM + 5.0
            );
        }
        for cycles in (0..=self.y_top).step_by(self.y_step as usize) {
            let y = self.y(cycles);
            let _ = writeln!(
                svg,
                r#"<line x1="{}" y1="{y:.1}" x2="{LEFT}" y2="{y:.1}"/>"#,
                LEFT - 5.0
            );
        }
        let _ = writeln!(
            svg,
            r#"<polyline points="{LEFT},{TOP} {LEFT},{BOTTOM} {RIGHT},{BOTTOM}" fill="none"/>"#
        );
        svg.push_str("</g>\n");

        svg.push_str(r##"<g fill="#333333">"##);
        svg.push('\n');
        for evaluations in (0..=self.x_top).step_by(self.x_step as usize) {
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{}" text-anchor="middle">{evaluations}</text>"#,
                self.x(evaluations),
                BOTTOM + 19.0
            );
        }
        for cycles in (0..=self.y_top).step_by(self.y_step as usize) {
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{:.1}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
                LEFT - 9.0,
                self.y(cycles),
                tick_label(cycles, self.y_step)
            );
        }
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{}" text-anchor="middle" font-size="13">evaluations</text>"#,
            (LEFT + RIGHT) / 2.0,
            BOTTOM + 42.0
        );
        let middle = (TOP + BOTTOM) / 2.0;
        let _ = writeln!(
            svg,
            r#"<text x="22" y="{middle:.1}" text-anchor="middle" font-size="13" transform="rotate(-90 22 {middle:.1})">best cycles so far</text>"#
        );
        svg.push_str("</g>\n");
    }

    /// The hand schedule and the roofline, dashed across the plot.
    fn render_reference_lines(&self, svg: &mut String) {
        let lines = [
            (self.result.baselines.hand.cycles, HAND_COLOUR, "6 4"),
            (Some(self.result.roofline_cycles), ROOFLINE_COLOUR, "2 3"),
        ];
        for (cycles, colour, dashes) in lines {
            let Some(cycles) = cycles.filter(|&cycles| cycles > 0) else {
                continue;
            };
            let y = self.y(cycles);
            let _ = writeln!(
                svg,
                r#"<line x1="{LEFT}" y1="{y:.1}" x2="{RIGHT}" y2="{y:.1}" stroke="{colour}" stroke-width="1.5" stroke-dasharray="{dashes}"/>"#
            );
        }
    }

    /// One step line per generator: the best so far holds until the next improvement.
    fn render_series(&self, svg: &mut String) {
        svg.push_str(r#"<g clip-path="url(#plot)" fill="none" stroke-linejoin="round">"#);
        svg.push('\n');
        // The main generator last, so it is drawn on top.
        for (index, series) in self.series.iter().enumerate().rev() {
            let mut points = String::new();
            let mut previous: Option<u64> = None;
            for &(evaluations, cycles) in &series.points {
                let x = self.x(evaluations);
                if let Some(previous) = previous {
                    let _ = write!(points, " {x:.1},{:.1}", self.y(previous));
                }
                let _ = write!(points, " {x:.1},{:.1}", self.y(cycles));
                previous = Some(cycles);
            }
            let width = if index == 0 { 2.5 } else { 1.5 };
            let _ = writeln!(
                svg,
                r#"<polyline points="{}" stroke="{}" stroke-width="{width}"/>"#,
                points.trim_start(),
                COLOURS[index % COLOURS.len()]
            );
        }
        svg.push_str("</g>\n");
        // The final bests, unclipped: they are never above the top of the axis.
        for (index, series) in self.series.iter().enumerate().rev() {
            if let Some(&(evaluations, cycles)) = series.points.last() {
                let _ = writeln!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{}"/>"#,
                    self.x(evaluations),
                    self.y(cycles),
                    COLOURS[index % COLOURS.len()]
                );
            }
        }
    }

    /// Right of the plot: each generator with its final best, then the dashed lines.
    fn render_legend(&self, svg: &mut String) {
        let x = RIGHT + 20.0;
        let mut y = TOP + 10.0;
        let mut entry = |svg: &mut String,
                         colour: &str,
                         width: f64,
                         dashes: &str,
                         label: String| {
            let dash_attribute = if dashes.is_empty() {
                String::new()
            } else {
                format!(r#" stroke-dasharray="{dashes}""#)
            };
            let _ = writeln!(
                svg,
                r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="{width}"{dash_attribute}/>"#,
                x + 24.0
            );
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{y}" dominant-baseline="middle">{label}</text>"#,
                x + 32.0
            );
            y += 22.0;
        };
        for (index, series) in self.series.iter().enumerate() {
            let best = series.points.last().map_or(0, |&(_, cycles)| cycles);
            entry(
                svg,
                COLOURS[index % COLOURS.len()],
                if index == 0 { 2.5 } else { 1.5 },
                "",
                format!(
                    "{} ({})",
                    xml_text(&shorten(&series.generator, LEGEND_CHARS)),
                    grouped(best)
                ),
            );
        }
        if let Some(hand) = self.result.baselines.hand.cycles {
            entry(
                svg,
                HAND_COLOUR,
                1.5,
                "6 4",
                format!("hand ({})", grouped(hand)),
            );
        }
        if self.result.roofline_cycles > 0 {
            entry(
                svg,
                ROOFLINE_COLOUR,
                1.5,
                "2 3",
                format!("roofline ({})", grouped(self.result.roofline_cycles)),
            );
        }
    }
}

/// `text` cut to `max` characters, an ellipsis marking the cut.
pub(super) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut short: String = text.chars().take(max.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// `1,018,866`: digits grouped by thousands, for the legend.
pub(super) fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A tick step near `raw`: 1, 2 or 5 times a power of ten, at least 1.
pub(super) fn nice_step(raw: f64) -> u64 {
    // NaN, from an empty range, lands here too.
    if raw.is_nan() || raw <= 1.0 {
        return 1;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let residual = raw / magnitude;
    let nice = if residual <= 1.0 {
        1.0
    } else if residual <= 2.0 {
        2.0
    } else if residual <= 5.0 {
        5.0
    } else {
        10.0
    };
    (nice * magnitude).round() as u64
}

/// `250k`, `1.5M` where the step allows an exact short form, the plain number otherwise.
pub(super) fn tick_label(value: u64, step: u64) -> String {
    if value == 0 {
        "0".to_string()
    } else if step.is_multiple_of(100_000) && value >= 1_000_000 {
        let millions = value as f64 / 1e6;
        format!("{}M", trim_float(millions))
    } else if step.is_multiple_of(1_000) {
        format!("{}k", value / 1_000)
    } else {
        value.to_string()
    }
}

fn trim_float(value: f64) -> String {
    let text = format!("{value:.1}");
    text.strip_suffix(".0").unwrap_or(&text).to_string()
}

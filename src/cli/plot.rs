//! Plots of simulation results, PNG or SVG: FER and BER against p on log-log axes (or against
//! Eb/N0 on AWGN, see [`super::plot_awgn`]), one colour per code, exact rates as lines,
//! simulated rates as points with their 95% intervals as error bars.

use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use tilecode::code::{Spec, build};
use tilecode::sim::{ExactModel, PointResult};

pub(super) const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// One curve: the points of a code (at one depth), in the order of p.
struct Curve<'a> {
    label: String,
    points: Vec<&'a PointResult>,
    exact: Option<ExactModel>,
}

/// The points grouped by label, in order of first appearance.
pub(super) fn group(
    results: &[PointResult],
    label: impl Fn(&PointResult) -> String,
) -> Vec<(String, Vec<&PointResult>)> {
    let mut out: Vec<(String, Vec<&PointResult>)> = Vec::new();
    for r in results {
        let l = label(r);
        match out.iter_mut().find(|(k, _)| *k == l) {
            Some((_, points)) => points.push(r),
            None => out.push((l, vec![r])),
        }
    }
    out
}

fn curves(results: &[PointResult]) -> anyhow::Result<Vec<Curve<'_>>> {
    let mut out: Vec<Curve> = group(results, |r| {
        if r.interleave > 1 {
            format!("{} D={}", r.code, r.interleave)
        } else {
            r.code.clone()
        }
    })
    .into_iter()
    .map(|(label, points)| Curve {
        label,
        points,
        exact: None,
    })
    .collect();
    for c in &mut out {
        c.points.sort_by(|a, b| a.p.total_cmp(&b.p));
        let first = c.points[0];
        if first.exact.is_some() && first.channel.starts_with("bsc") {
            let code = build(&first.code.parse::<Spec>()?);
            c.exact = Some(ExactModel::new(code.as_ref(), first.interleave)?);
        }
    }
    Ok(out)
}

pub(super) fn decade_floor(x: f64) -> f64 {
    10f64.powf(x.log10().floor())
}

/// Which rate a panel shows.
#[derive(Clone, Copy, PartialEq)]
enum Panel {
    Fer,
    Miscorrection,
    Ber,
}

impl Panel {
    fn value(self, r: &PointResult) -> f64 {
        match self {
            Panel::Fer => r.fer(),
            Panel::Miscorrection => r.miscorrection_rate(),
            Panel::Ber => r.ber(),
        }
    }

    fn ci(self, r: &PointResult) -> (f64, f64) {
        match self {
            Panel::Fer => r.fer_ci(),
            Panel::Miscorrection => r.miscorrection_ci(),
            Panel::Ber => r.ber_ci(),
        }
    }

    fn exact(self, m: &ExactModel, p: f64) -> Option<f64> {
        match self {
            Panel::Fer => Some(m.rates(p).fer),
            Panel::Miscorrection => Some(m.rates(p).miscorrection_rate),
            Panel::Ber => None,
        }
    }

    fn titles(self) -> (&'static str, &'static str) {
        match self {
            Panel::Fer => ("Frame error rate", "FER"),
            Panel::Miscorrection => (
                "Undetected errors (miscorrection rate)",
                "miscorrected frames / frames",
            ),
            Panel::Ber => ("Bit error rate of the delivered message", "BER"),
        }
    }
}

/// Draws with `|root| body` on a white drawing area of `size` pixels over `path`: a PNG for
/// `.png`, an SVG for `.svg` (the body is compiled for each backend), then writes the file.
/// The body's value is an `anyhow::Result<()>`; the macro's is the same.
macro_rules! on_file {
    ($path:expr, $size:expr, |$root:ident| $body:expr) => {{
        use anyhow::anyhow;
        use plotters::prelude::*;
        let path: &std::path::Path = $path;
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("svg") => {
                let $root = SVGBackend::new(path, $size).into_drawing_area();
                $root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
                $body?;
                $root.present().map_err(|e| anyhow!("{e}"))
            }
            Some("png") => {
                let $root = BitMapBackend::new(path, $size).into_drawing_area();
                $root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
                $body?;
                $root.present().map_err(|e| anyhow!("{e}"))
            }
            _ => Err(anyhow!(
                "expected a plot file ending in .png or .svg, found `{}`",
                path.display()
            )),
        }
    }};
}
pub(super) use on_file;

/// Draws the results into `path`: a PNG for `.png`, an SVG for `.svg`. Points that all have an
/// Eb/N0 (AWGN) get FER and BER against Eb/N0; others FER, miscorrection rate and BER against p.
///
/// # Errors
/// For another file name, no results, or a failure to draw or write.
pub fn fer_ber(path: &Path, results: &[PointResult]) -> anyhow::Result<()> {
    if results.is_empty() {
        anyhow::bail!("no results to plot");
    }
    let awgn = results.iter().all(|r| r.ebn0_db.is_some());
    let size = if awgn { (1400, 600) } else { (1800, 560) };
    on_file!(path, size, |root| if awgn {
        super::plot_awgn::draw(&root, results)
    } else {
        against_p(&root, results)
    })
}

/// FER, miscorrection rate and BER against p, side by side.
fn against_p<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &[PointResult],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let curves = curves(results)?;
    let ps: Vec<f64> = results.iter().map(|r| r.p).filter(|&p| p > 0.0).collect();
    if ps.is_empty() {
        anyhow::bail!("every point has p = 0: nothing to draw on a log scale");
    }
    let pmin = ps.iter().copied().fold(f64::INFINITY, f64::min);
    let pmax = ps.iter().copied().fold(0.0, f64::max);
    let (x0, x1) = (pmin / 2.0, (pmax * 2.0).min(1.0));
    let grid: Vec<f64> = (0..=120)
        .map(|i| x0 * (x1 / x0).powf(i as f64 / 120.0))
        .collect();

    let areas = root.split_evenly((1, 3));
    let panels = [Panel::Fer, Panel::Miscorrection, Panel::Ber];
    for (area, panel) in areas.iter().zip(panels) {
        let value = |r: &PointResult| panel.value(r);
        let ci = |r: &PointResult| panel.ci(r);
        // The y range covers every point, interval and exact value on the p grid.
        let mut lows: Vec<f64> = results
            .iter()
            .flat_map(|r| [value(r), ci(r).0, ci(r).1])
            .collect();
        for c in &curves {
            if let Some(m) = &c.exact {
                lows.extend(grid.iter().filter_map(|&p| panel.exact(m, p)));
            }
        }
        let ymin = lows
            .iter()
            .copied()
            .filter(|&y| y > 0.0)
            .fold(f64::INFINITY, f64::min);
        let ymin = if ymin.is_finite() {
            decade_floor(ymin.max(1e-300) / 1.5)
        } else {
            1e-6
        };
        let (title, ylabel) = panel.titles();
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d((x0..x1).log_scale(), (ymin..1.0).log_scale())
            .map_err(|e| anyhow!("{e}"))?;
        chart
            .configure_mesh()
            .x_desc("p (channel bit error probability)")
            .y_desc(ylabel)
            .x_label_formatter(&|x| format!("{x:.0e}"))
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        for (i, c) in curves.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            // Earlier curves are drawn wider, so that curves that coincide stay visible.
            let width = 2 + 3 * (curves.len() - 1 - i) as u32;
            if let (Panel::Fer | Panel::Miscorrection, Some(m)) = (panel, &c.exact) {
                let line: Vec<(f64, f64)> = grid
                    .iter()
                    .filter_map(|&p| panel.exact(m, p).map(|y| (p, y)))
                    .filter(|&(_, y)| y >= ymin)
                    .collect();
                chart
                    .draw_series(LineSeries::new(line, color.mix(0.8).stroke_width(width)))
                    .map_err(|e| anyhow!("{e}"))?
                    .label(format!("{} exact", c.label))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(2))
                    });
            } else {
                // Thin guide lines join simulated points that have no exact curve.
                let line: Vec<(f64, f64)> = c
                    .points
                    .iter()
                    .map(|r| (r.p, value(r)))
                    .filter(|&(p, y)| p > 0.0 && y > 0.0)
                    .collect();
                chart
                    .draw_series(LineSeries::new(line, color.mix(0.5).stroke_width(1)))
                    .map_err(|e| anyhow!("{e}"))?;
            }
            let bars = c.points.iter().filter(|r| r.p > 0.0).map(|r| {
                let (lo, hi) = ci(r);
                let (lo, hi) = (lo.max(ymin), hi.max(ymin));
                let (a, b) = (r.p / 1.06, r.p * 1.06);
                PathElement::new(
                    vec![(a, lo), (b, lo), (r.p, lo), (r.p, hi), (a, hi), (b, hi)],
                    color.stroke_width(1),
                )
            });
            chart.draw_series(bars).map_err(|e| anyhow!("{e}"))?;
            chart
                .draw_series(
                    c.points
                        .iter()
                        .filter(|r| r.p > 0.0 && value(r) > 0.0)
                        .map(|r| Circle::new((r.p, value(r)), 4, color.filled())),
                )
                .map_err(|e| anyhow!("{e}"))?
                .label(format!("{} simulated (95% CI)", c.label))
                .legend(move |(x, y)| Circle::new((x + 11, y), 4, color.filled()));
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    }
    Ok(())
}

/// The legend box of a panel, in the style of every plot here.
pub(super) fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| anyhow!("{e}"))
}

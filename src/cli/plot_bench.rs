//! The plot of `tilecode bench --plot`: throughput (as a ratio to memcpy) against the
//! interleaving depth, one line per code, for encoding and for clean decoding, and against the
//! code length, one series per depth; the floor of 0.6 drawn across.

use super::bench_matrix::FLOOR;
use super::plot::{COLORS, legend};
use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use serde_json::Value;
use std::path::Path;
use tilecode::code::{Spec, build};

/// One measured cell: code, its length, depth, encode and clean-decode ratios.
struct Cell {
    code: String,
    n: usize,
    depth: f64,
    encode: f64,
    clean: f64,
}

/// Which ratio of a cell a panel shows.
type Metric = fn(&Cell) -> f64;

fn cells(results: &[Value]) -> anyhow::Result<Vec<Cell>> {
    results
        .iter()
        .map(|r| {
            let code = r["code"].as_str().unwrap_or("").to_string();
            let spec: Spec = code.parse()?;
            Ok(Cell {
                n: build(&spec).n(),
                code,
                depth: r["interleave"].as_f64().unwrap_or(64.0),
                encode: r["encode_ratio"].as_f64().unwrap_or(0.0),
                clean: r["decode_clean_ratio"].as_f64().unwrap_or(0.0),
            })
        })
        .collect()
}

/// Draws `results` (the `results` array of `bench --json`) into `path`, PNG or SVG.
///
/// # Errors
/// For another file name, no results, or a failure to draw or write.
pub fn throughput(path: &Path, results: &[Value]) -> anyhow::Result<()> {
    let cells = cells(results)?;
    if cells.is_empty() {
        anyhow::bail!("no results to plot");
    }
    super::plot::on_file!(path, (1800, 560), |root| draw(&root, &cells))
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, cells: &[Cell]) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    let ymax = cells
        .iter()
        .map(|c| c.encode.max(c.clean))
        .fold(1.0, f64::max)
        * 1.05;
    let d0 = cells.iter().map(|c| c.depth).fold(f64::INFINITY, f64::min) / 1.5;
    let d1 = cells.iter().map(|c| c.depth).fold(0.0, f64::max) * 1.5;
    let areas = root.split_evenly((1, 3));
    let mut codes: Vec<&str> = Vec::new();
    for c in cells {
        if !codes.contains(&c.code.as_str()) {
            codes.push(&c.code);
        }
    }
    let panels: [(&str, Metric); 2] = [
        ("Encode against depth", |c| c.encode),
        ("Clean decode against depth", |c| c.clean),
    ];
    for (area, (title, value)) in areas.iter().zip(panels) {
        let mut chart = panel(area, title, "interleaving depth D", d0..d1, ymax)?;
        if codes.len() <= COLORS.len() {
            for (i, code) in codes.iter().enumerate() {
                let color = COLORS[i % COLORS.len()];
                let mut pts: Vec<(f64, f64)> = cells
                    .iter()
                    .filter(|c| c.code == *code)
                    .map(|c| (c.depth, value(c)))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                chart
                    .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                    .map_err(e)?
                    .label(*code)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(e)?;
            }
        } else {
            // Too many codes for a legend: every cell as a faint point, and the median and
            // the range over the codes at each depth.
            let color = COLORS[0];
            chart
                .draw_series(
                    cells
                        .iter()
                        .map(|c| Circle::new((c.depth, value(c)), 2, color.mix(0.35).filled())),
                )
                .map_err(e)?
                .label(format!("each of {} codes", codes.len()))
                .legend(move |(x, y)| Circle::new((x + 11, y), 3, color.filled()));
            let mut depths: Vec<f64> = cells.iter().map(|c| c.depth).collect();
            depths.sort_by(f64::total_cmp);
            depths.dedup();
            let stats: Vec<(f64, [f64; 3])> = depths
                .iter()
                .map(|&d| {
                    let mut v: Vec<f64> =
                        cells.iter().filter(|c| c.depth == d).map(value).collect();
                    v.sort_by(f64::total_cmp);
                    (d, [v[0], v[v.len() / 2], v[v.len() - 1]])
                })
                .collect();
            for (k, label, width) in [(1, "median", 3), (0, "lowest", 1), (2, "highest", 1)] {
                chart
                    .draw_series(LineSeries::new(
                        stats.iter().map(|&(d, m)| (d, m[k])),
                        BLACK.stroke_width(width),
                    ))
                    .map_err(e)?
                    .label(label)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 22, y)], BLACK.stroke_width(width))
                    });
            }
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    }
    // Encode against code length, a series per depth.
    let n0 = cells.iter().map(|c| c.n).min().unwrap_or(1) as f64 / 1.3;
    let n1 = cells.iter().map(|c| c.n).max().unwrap_or(1) as f64 * 1.3;
    let title = "Encode against code length";
    let mut chart = panel(&areas[2], title, "code length n (bits)", n0..n1, ymax)?;
    let mut depths: Vec<f64> = cells.iter().map(|c| c.depth).collect();
    depths.sort_by(f64::total_cmp);
    depths.dedup();
    for (i, d) in depths.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts = cells
            .iter()
            .filter(|c| c.depth == *d)
            .map(|c| Circle::new((c.n as f64, c.encode), 4, color.filled()));
        chart
            .draw_series(pts)
            .map_err(e)?
            .label(format!("D = {d}"))
            .legend(move |(x, y)| Circle::new((x + 11, y), 4, color.filled()));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    Ok(())
}

/// One panel: `x` on a log scale against the ratio to memcpy (0 to `ymax`), with its axes
/// labelled and the floor drawn across.
fn panel<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    title: &str,
    x_desc: &str,
    x: std::ops::Range<f64>,
    ymax: f64,
) -> anyhow::Result<ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, RangedCoordf64>>>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    let (x0, x1) = (x.start, x.end);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(60)
        .build_cartesian_2d(x.log_scale(), 0.0..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("ratio to memcpy (one thread)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()
        .map_err(e)?;
    floor_line(&mut chart, x0, x1)?;
    Ok(chart)
}

/// The floor of encode and clean decode ([`FLOOR`], every code and depth) as a red line.
fn floor_line<DB, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    x0: f64,
    x1: f64,
) -> anyhow::Result<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    chart
        .draw_series(LineSeries::new(
            vec![(x0, FLOOR), (x1, FLOOR)],
            RED.mix(0.5).stroke_width(2),
        ))
        .map_err(|e| anyhow!("{e}"))?
        .label(format!("floor {FLOOR}"))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], RED.mix(0.5).stroke_width(2)));
    Ok(())
}

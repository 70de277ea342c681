//! The AWGN plot: FER and BER against Eb/N0 in dB, as AFF3CT and Sionna users draw them. One
//! colour per code and decoder; simulated points with their 95% intervals as error bars; as
//! lines, the exact hard-decision FER (the BSC formulas at the equivalent crossover p), the union
//! bound on the ML FER, and uncoded BPSK.

use super::plot::{COLORS, decade_floor, group, legend};
use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;
use tilecode::code::{Spec, build, weight_distribution};
use tilecode::sim::analytic::{hard_crossover, uncoded_ber, union_bound_ber, union_bound_fer};
use tilecode::sim::{ExactModel, PointResult};

/// A named analytic FER curve against Eb/N0 in dB.
type Line = (String, Box<dyn Fn(f64) -> f64>);

/// The points of one code and decoder, by Eb/N0, with the analytic line that belongs to them.
struct Curve<'a> {
    label: String,
    points: Vec<&'a PointResult>,
    /// FER against Eb/N0 in dB, when the run asked for analytic figures.
    line: Option<Line>,
    /// BER against Eb/N0 in dB, likewise (the union bound of `ml` runs).
    ber_line: Option<Line>,
}

fn curves(results: &[PointResult]) -> anyhow::Result<Vec<Curve<'_>>> {
    let mut out: Vec<Curve> = group(results, |r| {
        let mut label = format!("{} {}", r.code, r.decoder);
        if r.interleave > 1 {
            label += &format!(" D={}", r.interleave);
        }
        label
    })
    .into_iter()
    .map(|(label, points)| Curve {
        label,
        points,
        line: None,
        ber_line: None,
    })
    .collect();
    for c in &mut out {
        c.points.sort_by(|a, b| {
            a.ebn0_db
                .unwrap_or(0.0)
                .total_cmp(&b.ebn0_db.unwrap_or(0.0))
        });
        let first = c.points[0];
        let code = build(&first.code.parse::<Spec>()?);
        let rate_db = 10.0 * code.rate().log10();
        let depth = first.interleave;
        let frame = move |x: f64| -(depth as f64 * (-x.min(1.0)).ln_1p()).exp_m1();
        if first.exact.is_some() {
            let m = ExactModel::new(code.as_ref(), depth)?;
            let f = move |db: f64| m.rates(hard_crossover(db + rate_db)).fer;
            c.line = Some(("exact (BSC at equivalent p)".into(), Box::new(f)));
        } else if first.decoder == "ml"
            && first.analytic.is_some_and(|a| a.union_bound_fer.is_some())
        {
            let wd = weight_distribution(code.as_ref())?;
            let (wd2, k) = (wd.clone(), code.k());
            let f = move |db: f64| frame(union_bound_fer(&wd, db + rate_db));
            c.line = Some(("union bound (ML)".into(), Box::new(f)));
            let b = move |db: f64| union_bound_ber(&wd2, k, db + rate_db);
            c.ber_line = Some(("union bound (ML)".into(), Box::new(b)));
        }
    }
    Ok(out)
}

/// Draws the FER and BER panels side by side.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &[PointResult],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let curves = curves(results)?;
    let dbs: Vec<f64> = results.iter().filter_map(|r| r.ebn0_db).collect();
    let lo = dbs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = dbs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (x0, x1) = (lo - 0.5, hi + 0.5);
    let grid: Vec<f64> = (0..=200)
        .map(|i| x0 + (x1 - x0) * i as f64 / 200.0)
        .collect();
    let areas = root.split_evenly((1, 2));
    for (area, fer) in areas.iter().zip([true, false]) {
        let value = |r: &PointResult| if fer { r.fer() } else { r.ber() };
        let ci = |r: &PointResult| if fer { r.fer_ci() } else { r.ber_ci() };
        let ymin = results
            .iter()
            .flat_map(|r| [value(r), ci(r).0, ci(r).1])
            .filter(|&y| y > 0.0)
            .fold(f64::INFINITY, f64::min);
        let ymin = if ymin.is_finite() {
            decade_floor(ymin / 1.5)
        } else {
            1e-6
        };
        let (title, ylabel) = if fer {
            ("Frame error rate", "FER")
        } else {
            ("Bit error rate of the delivered message", "BER")
        };
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 22))
            .margin(14)
            .x_label_area_size(50)
            .y_label_area_size(76)
            .build_cartesian_2d(x0..x1, (ymin..1.0).log_scale())
            .map_err(|e| anyhow!("{e}"))?;
        chart
            .configure_mesh()
            .x_desc("Eb/N0 (dB)")
            .y_desc(ylabel)
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .label_style(("sans-serif", 15))
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        let line_of = |f: &dyn Fn(f64) -> f64| -> Vec<(f64, f64)> {
            grid.iter()
                .map(|&x| (x, f(x)))
                .filter(|&(_, y)| y >= ymin && y <= 1.0)
                .collect()
        };
        if !fer {
            chart
                .draw_series(LineSeries::new(
                    line_of(&uncoded_ber),
                    BLACK.stroke_width(2),
                ))
                .map_err(|e| anyhow!("{e}"))?
                .label("uncoded BPSK")
                .legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 22, y)], BLACK.stroke_width(2))
                });
        }
        for (i, c) in curves.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            if let Some((name, f)) = if fer { &c.line } else { &c.ber_line } {
                chart
                    .draw_series(LineSeries::new(
                        line_of(f.as_ref()),
                        color.mix(0.8).stroke_width(2),
                    ))
                    .map_err(|e| anyhow!("{e}"))?
                    .label(format!("{} {name}", c.label))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(2))
                    });
            }
            let pts: Vec<(f64, f64)> = c
                .points
                .iter()
                .filter_map(|r| Some((r.ebn0_db?, value(r))))
                .filter(|&(_, y)| y > 0.0)
                .collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.mix(0.5).stroke_width(1)))
                .map_err(|e| anyhow!("{e}"))?;
            let bars = c.points.iter().filter_map(|r| {
                let x = r.ebn0_db?;
                let (lo, hi) = ci(r);
                let (lo, hi) = (lo.max(ymin), hi.max(ymin));
                let w = (x1 - x0) / 120.0;
                Some(PathElement::new(
                    vec![
                        (x - w, lo),
                        (x + w, lo),
                        (x, lo),
                        (x, hi),
                        (x - w, hi),
                        (x + w, hi),
                    ],
                    color.stroke_width(1),
                ))
            });
            chart.draw_series(bars).map_err(|e| anyhow!("{e}"))?;
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
                .map_err(|e| anyhow!("{e}"))?
                .label(format!("{} simulated (95% CI)", c.label))
                .legend(move |(x, y)| Circle::new((x + 11, y), 4, color.filled()));
        }
        legend(&mut chart, SeriesLabelPosition::LowerLeft)?;
    }
    Ok(())
}

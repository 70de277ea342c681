//! `tilecode compare`: codes side by side, with exact error rates on a binary symmetric channel.

use super::info::{float_json, optimal_text, parse_spec, report_json};
use anyhow::bail;
use serde_json::{Value, json};
use std::fmt::Write;
use std::process::ExitCode;
use tilecode::code::analysis::{BscProfile, BscRates, CodeReport, report, weight_distribution};
use tilecode::code::bounds::Optimality;
use tilecode::code::build;

/// The crossover probabilities compared by default.
pub const DEFAULT_P: [f64; 4] = [1e-2, 1e-3, 1e-4, 1e-5];

/// Arguments of `tilecode compare`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The codes: alien:MxN, secded:N, hamming:N, repetition:N, parity:N or product:MxN.
    #[arg(required = true, num_args = 1..)]
    pub specs: Vec<String>,
    /// Crossover probabilities of the binary symmetric channel, comma-separated.
    #[arg(long = "p", value_name = "LIST", value_delimiter = ',')]
    pub p: Vec<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// A probability in `[0, 1]`.
fn parse_probability(text: &str) -> anyhow::Result<f64> {
    match text.trim().parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => bail!("bad --p value `{text}`: expected a probability in [0, 1]"),
    }
}

/// One code's analysis and its rates at every `p`.
struct Column {
    report: CodeReport,
    rates: Vec<BscRates>,
}

/// Runs `tilecode compare`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let ps: Vec<f64> = if args.p.is_empty() {
        DEFAULT_P.to_vec()
    } else {
        args.p
            .iter()
            .map(|t| parse_probability(t))
            .collect::<anyhow::Result<_>>()?
    };
    let specs = args
        .specs
        .iter()
        .map(|s| parse_spec(s))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut columns = Vec::with_capacity(specs.len());
    for spec in &specs {
        let code = build(spec);
        let report = report(code.as_ref());
        let Some(wd) = &report.weight_distribution else {
            // The limit check fails fast and says why.
            weight_distribution(code.as_ref())?;
            bail!("the weight distribution of {spec} is out of reach");
        };
        let profile = BscProfile::new(code.as_ref(), wd);
        let rates = ps.iter().map(|&p| profile.rates(p)).collect();
        columns.push(Column { report, rates });
    }
    if args.json {
        let codes: Vec<Value> = columns
            .iter()
            .map(|c| {
                let mut o = report_json(&c.report);
                let bsc: Vec<Value> = c
                    .rates
                    .iter()
                    .map(|r| {
                        json!({
                            "p": float_json(r.p),
                            "fer": float_json(r.fer),
                            "detected": float_json(r.detected),
                            "miscorrected": float_json(r.miscorrected),
                            "correct": float_json(r.correct),
                        })
                    })
                    .collect();
                o["bsc"] = Value::Array(bsc);
                o
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({ "codes": codes }))?
        );
    } else {
        for c in &columns {
            for w in &c.report.warnings {
                eprintln!("warning: {}: {w}", c.report.spec);
            }
        }
        print!("{}", table(&columns, &ps));
    }
    Ok(ExitCode::SUCCESS)
}

/// The smallest non-zero weight and its count, `A_d`.
fn min_weight_count(r: &CodeReport) -> String {
    r.weight_distribution
        .as_ref()
        .and_then(|wd| {
            wd.iter()
                .enumerate()
                .skip(1)
                .find(|(_, a)| a.bits() > 0)
                .map(|(w, a)| format!("A_{w} = {a}"))
        })
        .unwrap_or_else(|| "none".into())
}

fn table(columns: &[Column], ps: &[f64]) -> String {
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut add = |label: &str, f: &dyn Fn(&Column) -> String| {
        rows.push((label.to_string(), columns.iter().map(f).collect()));
    };
    add("code", &|c| c.report.spec.to_string());
    add("length n", &|c| c.report.n.to_string());
    add("dimension k", &|c| c.report.k.to_string());
    add("distance d", &|c| c.report.d.to_string());
    add("corrects t", &|c| c.report.t.to_string());
    add("rate", &|c| format!("{:.4}", c.report.rate));
    add("covering radius", &|c| {
        c.report
            .covering_radius
            .map_or_else(|| "out of reach".into(), |r| r.to_string())
    });
    add("min-weight words", &|c| min_weight_count(&c.report));
    add("singleton bound", &|c| {
        c.report.bounds.singleton.to_string()
    });
    add("hamming bound", &|c| c.report.bounds.hamming.to_string());
    add("griesmer bound", &|c| c.report.bounds.griesmer.to_string());
    add("optimal", &|c| match c.report.optimality {
        Optimality::Beaten { spec, k } => format!("no ({spec}: k={k})"),
        ref o => optimal_text(o),
    });
    for (i, p) in ps.iter().enumerate() {
        rows.push((format!("BSC p = {p:e}"), vec![String::new(); columns.len()]));
        let mut add = |label: &str, f: &dyn Fn(&BscRates) -> f64| {
            rows.push((
                format!("  {label}"),
                columns
                    .iter()
                    .map(|c| format!("{:.6e}", f(&c.rates[i])))
                    .collect(),
            ));
        };
        add("frame error rate", &|r| r.fer);
        add("detected", &|r| r.detected);
        add("miscorrected", &|r| r.miscorrected);
    }
    let label_width = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(0) + 2;
    let widths: Vec<usize> = (0..columns.len())
        .map(|j| rows.iter().map(|(_, v)| v[j].len()).max().unwrap_or(0) + 2)
        .collect();
    let mut out = String::new();
    for (label, values) in &rows {
        let mut line = format!("{label:<label_width$}");
        for (v, w) in values.iter().zip(&widths) {
            let _ = write!(line, "{v:<w$}");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

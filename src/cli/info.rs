//! `tilecode info`: exact parameters of one code.

use num_bigint::BigUint;
use serde_json::{Map, Number, Value, json};
use std::process::ExitCode;
use std::str::FromStr;
use tilecode::code::analysis::{CodeReport, report};
use tilecode::code::bounds::Optimality;
use tilecode::code::{Spec, build};

/// Arguments of `tilecode info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The code: alien:MxN, secded:N, hamming:N, repetition:N, parity:N or product:MxN.
    pub spec: String,
    /// Print JSON instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// List every non-zero weight with its exact count (the summary abbreviates long
    /// distributions and huge counts).
    #[arg(long)]
    pub full: bool,
}

/// Parses a spec given on the command line.
pub fn parse_spec(text: &str) -> anyhow::Result<Spec> {
    Ok(text.parse::<Spec>()?)
}

/// Runs `tilecode info`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let spec = parse_spec(&args.spec)?;
    let code = build(&spec);
    let r = report(code.as_ref());
    if args.json {
        let text = serde_json::to_string_pretty(&report_json(&r))?;
        println!("{text}");
    } else {
        for w in &r.warnings {
            eprintln!("warning: {w}");
        }
        print!("{}", summary(&r, args.full));
    }
    Ok(ExitCode::SUCCESS)
}

/// An exact integer as a JSON number, however large.
pub fn big_json(x: &BigUint) -> Value {
    Value::Number(Number::from_str(&x.to_string()).expect("decimal digits are a JSON number"))
}

/// A float as a JSON number (null if not finite).
pub fn float_json(x: f64) -> Value {
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// The JSON object of a report: the keys docs/cli.md lists for `tilecode info`.
pub fn report_json(r: &CodeReport) -> Value {
    let mut o = Map::new();
    o.insert("spec".into(), json!(r.spec.to_string()));
    o.insert("n".into(), json!(r.n));
    o.insert("k".into(), json!(r.k));
    o.insert("d".into(), json!(r.d));
    o.insert("t".into(), json!(r.t));
    o.insert("rate".into(), float_json(r.rate));
    o.insert("covering_radius".into(), json!(r.covering_radius));
    o.insert(
        "weight_distribution".into(),
        r.weight_distribution.as_ref().map_or(Value::Null, |wd| {
            Value::Array(wd.iter().map(big_json).collect())
        }),
    );
    o.insert(
        "bounds".into(),
        json!({
            "singleton": r.bounds.singleton,
            "hamming": r.bounds.hamming,
            "griesmer": r.bounds.griesmer,
        }),
    );
    o.insert("optimal".into(), json!(r.optimality.as_bool()));
    if let Optimality::Beaten { spec, k } = r.optimality {
        o.insert(
            "better_code".into(),
            json!({ "spec": spec.to_string(), "k": k }),
        );
    }
    o.insert("warnings".into(), json!(r.warnings));
    Value::Object(o)
}

/// `yes`, `no: secded:81 has k = 73` or `unknown`.
pub fn optimal_text(o: &Optimality) -> String {
    match o {
        Optimality::Optimal => "yes".into(),
        Optimality::Beaten { spec, k } => format!("no: {spec} has k = {k}"),
        Optimality::Unknown => "unknown".into(),
    }
}

/// A count in full when short, else as `~d.dddde<exp>` (the summary's abbreviation).
pub fn short_count(x: &BigUint, full: bool) -> String {
    let s = x.to_string();
    if full || s.len() <= 24 {
        s
    } else {
        format!("~{}.{}e{}", &s[..1], &s[1..6], s.len() - 1)
    }
}

/// The human summary of a report.
pub fn summary(r: &CodeReport, full: bool) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let row = |out: &mut String, key: &str, value: String| {
        let _ = writeln!(out, "{key:<20}{value}");
    };
    row(&mut out, "code", r.spec.to_string());
    row(&mut out, "length n", r.n.to_string());
    row(&mut out, "dimension k", r.k.to_string());
    row(&mut out, "distance d", r.d.to_string());
    row(&mut out, "corrects t", r.t.to_string());
    row(&mut out, "rate", format!("{:.4}", r.rate));
    row(
        &mut out,
        "covering radius",
        r.covering_radius
            .map_or_else(|| "out of reach".into(), |c| c.to_string()),
    );
    row(
        &mut out,
        "bounds on k",
        format!(
            "singleton {}, hamming {}, griesmer {}",
            r.bounds.singleton, r.bounds.hamming, r.bounds.griesmer
        ),
    );
    row(&mut out, "optimal", optimal_text(&r.optimality));
    match &r.weight_distribution {
        None => row(&mut out, "weight distribution", "out of reach".into()),
        Some(wd) => {
            let nonzero: Vec<(usize, &BigUint)> = wd
                .iter()
                .enumerate()
                .filter(|(_, a)| a.bits() > 0)
                .collect();
            let total: BigUint = wd.iter().sum();
            let total_text =
                if total.bits() > 0 && total == BigUint::from(1u32) << (total.bits() - 1) {
                    format!("2^{}", total.bits() - 1)
                } else {
                    short_count(&total, full)
                };
            row(
                &mut out,
                "weight distribution",
                format!("{} non-zero weights, {total_text} codewords", nonzero.len()),
            );
            let width = r.n.to_string().len().max(1);
            let shown: Box<dyn Iterator<Item = &(usize, &BigUint)>> = if full || nonzero.len() <= 40
            {
                Box::new(nonzero.iter())
            } else {
                Box::new(
                    nonzero[..20]
                        .iter()
                        .chain(nonzero[nonzero.len() - 20..].iter()),
                )
            };
            for (i, (w, a)) in shown.enumerate() {
                if !full && nonzero.len() > 40 && i == 20 {
                    let _ = writeln!(
                        out,
                        "  {:>width$}  ({} more weights; --full lists them all)",
                        "...",
                        nonzero.len() - 40
                    );
                }
                let _ = writeln!(out, "  {w:>width$}  {}", short_count(a, full));
            }
        }
    }
    out
}

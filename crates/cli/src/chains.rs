//! `encint chains`: the addition-subtraction chains of scalar multiplication (statistics,
//! one chain, regeneration of the committed table).

use clap::Args;
use encint::circuit::chains::{self, Chain};
use encint::circuit::recode::koyama_tsuruoka;
use encint::circuit::signed;

use crate::error::{internal, usage};
use crate::CliResult;

/// `encint chains`.
#[derive(Args)]
pub struct ChainsArgs {
    /// Number of distinct 12-digit Koyama-Tsuruoka windows over odd k < 4096 and the
    /// total and average additions of our chains over them (Appendix B of Klemsa and Önen,
    /// "Parmesan: Parallel ARithMETicS over ENcrypted data").
    #[arg(long)]
    stats: bool,
    /// With --stats: print a JSON object {windows, total, average}.
    #[arg(long)]
    json: bool,
    /// Print the chain of one odd k < 4096.
    #[arg(long)]
    show: Option<u64>,
    /// Search all shortest chains again and write the table to FILE (a few seconds).
    #[arg(long, value_name = "FILE")]
    generate: Option<std::path::PathBuf>,
    /// With --generate: replace FILE if it exists.
    #[arg(long, requires = "generate")]
    force: bool,
}

/// Distinct |window| values of the 12-digit Koyama-Tsuruoka recoding of odd k < 4096.
fn appendix_b_windows() -> Vec<u64> {
    let mut values: Vec<u64> = (1u64..4096)
        .step_by(2)
        .map(|k| {
            let d = koyama_tsuruoka(u128::from(k));
            let low: Vec<i8> = d.into_iter().take(12).collect();
            signed::to_i128(&low).expect("12 digits fit").unsigned_abs() as u64
        })
        .collect();
    values.sort_unstable();
    values.dedup();
    values
}

/// Runs `encint chains`.
pub fn run(a: ChainsArgs) -> CliResult {
    // --show is checked before --generate searches (a few seconds).
    let shown = a
        .show
        .map(|k| {
            chains::chain_for(k)
                .map(|c| (k, c))
                .ok_or_else(|| usage(format!("--show {k}: k must be odd and below 4096")))
        })
        .transpose()?;
    if let Some(path) = a.generate {
        encint::io::files::check_new(&[&path], a.force)?;
        eprintln!("searching shortest chains for every odd k < 4096 ...");
        let table = chains::search(4096);
        let text = chains::render_table(&table);
        encint::io::files::write_one(
            &path,
            text.as_bytes(),
            encint::io::files::Mode::Public,
            a.force,
        )?;
        eprintln!("wrote {} chains to {}", table.len(), path.display());
    }
    if let Some((k, chain)) = shown {
        println!("{k}: {} additions", chain.additions());
        print_chain(chain);
    }
    if a.stats {
        let windows = appendix_b_windows();
        let mut total = 0usize;
        let mut naive = 0usize;
        for &w in &windows {
            let chain =
                chains::chain_for(w).ok_or_else(|| internal("window value without a chain"))?;
            total += chain.additions();
            naive += chains::double_and_add_signed(&koyama_tsuruoka(u128::from(w))).additions();
        }
        let average = total as f64 / windows.len() as f64;
        if a.json {
            println!(
                "{}",
                serde_json::json!({"windows": windows.len(), "total": total, "average": average})
            );
        } else {
            println!(
                "distinct 12-digit Koyama-Tsuruoka windows of odd k < 4096: {}",
                windows.len()
            );
            println!("additions with our shortest ASC*: total {total}, average {average:.3}");
            println!(
                "additions with double-and-add/sub over the recoded digits: total {naive}, average {:.3}",
                naive as f64 / windows.len() as f64
            );
            println!("(Parmesan, App. B: 1792 windows, 5558 additions, average 3.10)");
        }
    }
    Ok(())
}

fn print_chain(chain: &Chain) {
    let values = chain.elements();
    for (i, s) in chain.steps.iter().enumerate() {
        let sign = |n: bool| if n { "-" } else { "+" };
        println!(
            "  e{} = {} = odd part of |{}{}·2^{} {}{}·2^{}|",
            i + 1,
            values[i + 1],
            sign(s.a_negative),
            values[s.a],
            s.a_shift,
            sign(s.b_negative),
            values[s.b],
            s.b_shift
        );
    }
}

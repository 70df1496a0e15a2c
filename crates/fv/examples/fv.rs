//! Stand-alone front end of the `encint fv` commands, e.g.
//! `cargo run --release -p encint-fv --example fv -- bench --set A --variant all --json`.

use clap::Parser;
use encint_fv::cli::{run, FvCommand};

#[derive(Parser, Debug)]
#[command(name = "fv", about = "FV (BFV) benchmarks and depth measurements")]
struct Cli {
    #[command(subcommand)]
    cmd: FvCommand,
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli.cmd) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

//! An ERC20-style token transfer on encrypted balances (the example TFHE-rs ships): the
//! server moves `amount` from one balance to another only when the sender has enough,
//! without learning the balances, the amount or whether the transfer happened. Each
//! transfer is one compiled circuit; every result is checked against plain integers.
//!
//! ```sh
//! cargo run --release -p encint --example erc20
//! ```

use std::time::Instant;

use encint::fhe::{compile, set_server_key, FheUint64};
use encint::{ClientKey, DEFAULT_PARAMETERS};

/// The balances after moving `amount` from `sender` to `receiver`, unchanged when the
/// sender lacks the funds: a comparison and two selections.
fn transfer(
    (sender, receiver, amount): (FheUint64, FheUint64, FheUint64),
) -> (FheUint64, FheUint64) {
    let enough = sender.ge(&amount);
    let sent = enough.select(&sender - &amount, &sender);
    let received = enough.select(&receiver + &amount, &receiver);
    (sent, received)
}

/// The same with Rust's overflow flag: a borrow means the funds are short.
fn transfer_overflowing(
    (sender, receiver, amount): (FheUint64, FheUint64, FheUint64),
) -> (FheUint64, FheUint64) {
    let (rest, short) = sender.overflowing_sub(&amount);
    let sent = short.select(&sender, &rest);
    let received = short.select(&receiver, &receiver + &amount);
    (sent, received)
}

/// The transfer on plain integers.
fn plain(sender: u64, receiver: u64, amount: u64) -> (u64, u64) {
    if sender >= amount {
        (sender - amount, receiver + amount)
    } else {
        (sender, receiver)
    }
}

pub fn main() -> encint::Result<()> {
    let (client, server_key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    set_server_key(server_key);
    let circuits = [
        ("select", compile(transfer)?),
        ("overflowing", compile(transfer_overflowing)?),
    ];
    for (name, f) in &circuits {
        let cost = f.cost();
        println!(
            "{name}: {} bootstraps, depth {}",
            cost.bootstraps, cost.depth
        );
    }
    let mut balances = (700_000u64, 150_000u64);
    // The last transfer asks for more than the sender holds.
    for (step, amount) in [250_000u64, 449_999, 450_002].into_iter().enumerate() {
        let (_, f) = &circuits[step % 2];
        let args = (
            FheUint64::encrypt(balances.0, &client)?,
            FheUint64::encrypt(balances.1, &client)?,
            FheUint64::encrypt(amount, &client)?,
        );
        let start = Instant::now();
        let (a, b) = f.run(&args)?;
        let seconds = start.elapsed().as_secs_f64();
        let got = (a.decrypt::<u64>(&client)?, b.decrypt::<u64>(&client)?);
        let want = plain(balances.0, balances.1, amount);
        println!("transfer {amount}: {balances:?} -> {got:?} ({seconds:.2} s)");
        assert_eq!(got, want, "transfer {amount} from {balances:?}");
        balances = got;
    }
    Ok(())
}

//! The depths of the bit-sliced FV sets ([`encint::fv_bits::sets`]) on real ciphertexts:
//! a circuit at exactly a set's usable depth decrypts right in every slot (against plain
//! integers and the clear run of the same circuit), and so does one at its measured depth
//! (one level more, with the executor's limit lifted: the margin the usable depth keeps).
//!
//! In CI: `128-8192` and `128-16384` (ripple-carry adders exactly as deep as the depths,
//! and the 8-bit multiplier, depth 11, at `128-16384`), a few seconds. `128-32768`, and the
//! measurement of the practical depth behind the constants (the first depth at which a
//! circuit decrypts wrongly or its decryption is refused), are ignored:
//!
//! ```text
//! cargo test --release -p encint --test fv_depth -- --ignored --nocapture
//! ```

use encint::fv_bits::{FvBitSet, FvBitsClientKey, FvBitsServerKey, FvProgram};
use encint_arith::bits::{from_bits, leveled, leveled::Adder, to_bits, Word};
use encint_core::bits::{BitBuilder, BitCircuit};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// A circuit on two `w`-bit inputs.
fn circuit(w: usize, f: impl Fn(&mut BitBuilder, &Word, &Word) -> Word) -> BitCircuit {
    let mut b = BitBuilder::new();
    let (x, y) = (Word::input(&mut b, w), Word::input(&mut b, w));
    let o = f(&mut b, &x, &y);
    b.finish(o.bits)
}

fn mask(w: usize) -> u64 {
    if w == 64 {
        u64::MAX
    } else {
        (1 << w) - 1
    }
}

/// The ripple-carry adder whose compiled depth is exactly `depth` (its carry chain is as
/// deep as the adder is wide), with its width.
fn ripple_of_depth(depth: u32) -> (usize, BitCircuit) {
    (1..=64)
        .map(|w| (w, circuit(w, |b, x, y| leveled::add_ripple(b, x, y, None))))
        .find(|(_, c)| FvProgram::compile(c).unwrap().depth() == depth)
        .unwrap_or_else(|| panic!("no ripple-carry adder of depth {depth}"))
}

/// What a run gave: right in every slot, or the first wrong slot, or a refused decryption.
#[derive(Debug, PartialEq)]
enum Outcome {
    Right,
    Wrong { slot: usize, got: u64, want: u64 },
    Refused(String),
}

/// Runs `c` (two `w`-bit inputs) on `xs`, `ys` and compares every slot with `reference`
/// and with the clear run of `c`; returns the outcome and the result's noise budget (bits).
/// A decryption error counts as a failure, like a wrong value: a set's depth is usable only
/// where results decrypt, and right.
fn run(
    client: &FvBitsClientKey,
    server: &FvBitsServerKey,
    w: usize,
    c: &BitCircuit,
    xs: &[u64],
    ys: &[u64],
    reference: impl Fn(u64, u64) -> u64,
) -> (Outcome, f64) {
    let a = client.encrypt(xs, w, false).unwrap();
    let b = client.encrypt(ys, w, false).unwrap();
    let (out, _) = server.run(c, &[&a, &b]).unwrap();
    let budget = client.noise_budget(&out).unwrap_or(f64::NAN);
    let got = match client.decrypt(&out) {
        Ok(v) => v,
        Err(e) => return (Outcome::Refused(e.to_string()), budget),
    };
    for (slot, (&x, &y)) in xs.iter().zip(ys).enumerate() {
        let want = reference(x, y);
        let mut ins = to_bits(u128::from(x), w);
        ins.extend(to_bits(u128::from(y), w));
        assert_eq!(
            from_bits(&c.eval(&ins).unwrap()) as u64,
            want,
            "the clear circuit against plain integers"
        );
        if got[slot] != want {
            let wrong = Outcome::Wrong {
                slot,
                got: got[slot],
                want,
            };
            return (wrong, budget);
        }
    }
    (Outcome::Right, budget)
}

/// A few slots: the edges (carries through every bit) and random values.
fn operands(w: usize, rng: &mut ChaCha20Rng) -> (Vec<u64>, Vec<u64>) {
    let m = mask(w);
    let mut xs = vec![0, m, m, 1, m >> 1];
    let mut ys = vec![0, m, 1, m, (m >> 1) + 1];
    for _ in 0..3 {
        xs.push(rng.r#gen::<u64>() & m);
        ys.push(rng.r#gen::<u64>() & m);
    }
    (xs, ys)
}

/// Every slot of a ripple-carry adder as deep as `set` claims to allow decrypts right.
fn check_ripple_at_usable_depth(
    set: &FvBitSet,
    client: &FvBitsClientKey,
    server: &FvBitsServerKey,
    rng: &mut ChaCha20Rng,
) {
    let (w, c) = ripple_of_depth(set.usable_depth);
    let (xs, ys) = operands(w, rng);
    let m = mask(w);
    assert_eq!(
        run(client, server, w, &c, &xs, &ys, |x, y| x.wrapping_add(y)
            & m)
        .0,
        Outcome::Right,
        "{}: a {w}-bit ripple-carry adder at the usable depth {}",
        set.name(),
        set.usable_depth
    );
}

/// A ripple-carry adder at the set's measured depth (one level past the usable depth, so
/// with the executor's limit lifted) still decrypts right in every slot: the margin the
/// usable depth keeps is there.
fn check_ripple_at_measured_depth(set: &FvBitSet, rng: &mut ChaCha20Rng) {
    let (client, server) = FvBitsClientKey::generate(&unlimited(set)).unwrap();
    let (w, c) = ripple_of_depth(set.measured_depth);
    let (xs, ys) = operands(w, rng);
    let m = mask(w);
    assert_eq!(
        run(&client, &server, w, &c, &xs, &ys, |x, y| x.wrapping_add(y)
            & m)
        .0,
        Outcome::Right,
        "{}: a {w}-bit ripple-carry adder at the measured depth {}",
        set.name(),
        set.measured_depth
    );
}

/// The keys of `set` with the executor's depth limit lifted (circuits deeper than the
/// set's claim run, so that the claim itself can be checked).
fn unlimited(set: &FvBitSet) -> FvBitSet {
    FvBitSet {
        params: set.params.clone(),
        measured_depth: 64,
        usable_depth: 64,
    }
}

/// The two smaller sets: circuits at the usable depth decrypt right, and so does a
/// circuit one level deeper, at the measured depth (the usable depth is the measured one
/// less a level of margin, so that level must still be there).
#[test]
fn the_two_smaller_sets_decrypt_at_their_usable_and_measured_depths() {
    let mut rng = ChaCha20Rng::seed_from_u64(21);
    for name in ["128-8192", "128-16384"] {
        let set = FvBitSet::by_name(name).unwrap();
        let (client, server) = FvBitsClientKey::generate(&set).unwrap();
        check_ripple_at_usable_depth(&set, &client, &server, &mut rng);
        check_ripple_at_measured_depth(&set, &mut rng);
        if name == "128-16384" {
            // The 8-bit product (the row the set is chosen for, depth 11: all of it).
            let mul8 = circuit(8, |b, x, y| leveled::mul(b, Adder::Sklansky, x, y));
            let depth = FvProgram::compile(&mul8).unwrap().depth();
            assert!(
                depth <= set.usable_depth,
                "the 8-bit product fits 128-16384"
            );
            let (xs, ys) = operands(8, &mut rng);
            assert_eq!(
                run(&client, &server, 8, &mul8, &xs, &ys, |x, y| (x * y) & 0xff).0,
                Outcome::Right,
                "8-bit product at 128-16384"
            );
        }
    }
}

#[test]
#[ignore = "128-32768 keys and a 25-deep circuit: about a minute"]
fn the_largest_set_decrypts_at_its_usable_and_measured_depths() {
    let mut rng = ChaCha20Rng::seed_from_u64(22);
    let set = FvBitSet::by_name("128-32768").unwrap();
    let (client, server) = FvBitsClientKey::generate(&set).unwrap();
    check_ripple_at_usable_depth(&set, &client, &server, &mut rng);
    check_ripple_at_measured_depth(&set, &mut rng);
}

/// The practical depth of each set: the first depth at which a ripple-carry adder of that
/// depth, on full random batches, decrypts wrongly in some slot or has its decryption
/// refused. The keys are those of the set with the executor's depth limit lifted, so that
/// circuits deeper than the claim can run. Prints one line per depth tried (with the noise
/// budget left, in bits) and checks that the claimed usable depth is below the failure.
#[test]
#[ignore = "measurement: FV keys of every set, circuits past the claimed depths (minutes)"]
fn practical_depth_behind_the_claimed_depths() {
    let mut rng = ChaCha20Rng::seed_from_u64(23);
    for set in encint::fv_bits::sets() {
        let (client, server) = FvBitsClientKey::generate(&unlimited(&set)).unwrap();
        let n = set.slots();
        let mut first_failure = None;
        for depth in set.usable_depth.saturating_sub(1).max(1)..=set.usable_depth + 8 {
            let (w, c) = ripple_of_depth(depth);
            let m = mask(w);
            let xs: Vec<u64> = (0..n).map(|_| rng.r#gen::<u64>() & m).collect();
            let ys: Vec<u64> = (0..n).map(|_| rng.r#gen::<u64>() & m).collect();
            let (outcome, budget) = run(&client, &server, w, &c, &xs, &ys, |x, y| {
                x.wrapping_add(y) & m
            });
            eprintln!(
                "{}: depth {depth} ({w}-bit ripple), noise budget {budget:.1} bits: {outcome:?}",
                set.name()
            );
            if outcome != Outcome::Right {
                first_failure = Some(depth);
                break;
            }
        }
        let failure = first_failure.unwrap_or_else(|| {
            panic!(
                "{}: no failure up to depth {}",
                set.name(),
                set.usable_depth + 8
            )
        });
        eprintln!(
            "{}: first failing depth {failure}, claimed usable {}",
            set.name(),
            set.usable_depth
        );
        assert!(failure > set.usable_depth, "{}", set.name());
    }
}

use super::*;

/// Independent evaluation with plain i128 arithmetic (does not use `evaluate`).
fn eval_plain(c: &Chain) -> Vec<i128> {
    let mut v: Vec<i128> = vec![1];
    for (i, s) in c.steps.iter().enumerate() {
        assert!(
            s.a <= i && s.b <= i,
            "forward reference in chain for {}",
            c.target
        );
        let x = v[s.a] << s.a_shift;
        let y = v[s.b] << s.b_shift;
        let r = if s.a_negative { -x } else { x } + if s.b_negative { -y } else { y };
        assert_ne!(r, 0, "zero step in chain for {}", c.target);
        let mut e = r.abs();
        while e % 2 == 0 {
            e /= 2;
        }
        v.push(e);
    }
    v
}

#[test]
fn table_chains_compute_their_targets() {
    let t = table();
    assert_eq!(t.len(), 2048);
    for c in t {
        let v = eval_plain(c);
        assert_eq!(
            *v.last().unwrap(),
            c.target as i128,
            "chain for {}",
            c.target
        );
        assert!(v.iter().all(|&e| e > 0 && e % 2 == 1));
    }
}

#[test]
fn every_odd_k_has_a_chain() {
    for k in (1..4096u64).step_by(2) {
        let c = chain_for(k).unwrap_or_else(|| panic!("no chain for {k}"));
        assert_eq!(c.target, k);
        assert_eq!(c.evaluate(), Ok(k));
    }
    assert_eq!(chain_for(1).unwrap().additions(), 0);
    assert!(chain_for(0).is_none());
    assert!(chain_for(2).is_none());
    assert!(chain_for(4097).is_none());
}

#[test]
fn known_short_chains() {
    // Parmesan, Example 5 and the examples listed after it.
    for k in [
        805u64, 1173, 1209, 1305, 1353, 1377, 1595, 1605, 1695, 1743, 2585, 3129, 3143, 3195, 3205,
        3633, 3717, 3813,
    ] {
        assert!(chain_for(k).unwrap().additions() <= 3, "{k}");
    }
    assert_eq!(chain_for(4095).unwrap().additions(), 1);
    assert_eq!(chain_for(4093).unwrap().additions(), 2);
    // 4097 = 2^12 + 1: outside the table, but the search finds one addition.
    let c = &search::search_lengths(4098).0[4097 / 2];
    assert_eq!((c.target, c.additions()), (4097, 1));
    // The window values of 4097 and 4095 (NAF: 1 and 1; 1·2^12 − 1) are 1.
    assert_eq!(double_and_add(4097).additions(), 1);
    assert_eq!(double_and_add(4095).additions(), 1);
}

#[test]
fn table_is_not_longer_than_double_and_add() {
    let mut dist = [0usize; 8];
    for k in (1..4096u64).step_by(2) {
        let c = chain_for(k).unwrap();
        let d = double_and_add(k);
        assert_eq!(d.evaluate(), Ok(k));
        assert_eq!(
            d.additions(),
            naf(k).iter().filter(|&&x| x != 0).count() - 1
        );
        assert!(
            c.additions() <= d.additions(),
            "{k}: {} > {}",
            c.additions(),
            d.additions()
        );
        dist[c.additions()] += 1;
    }
    assert_eq!(dist, [1, 21, 224, 1290, 512, 0, 0, 0]);
}

#[test]
fn small_search_matches_table() {
    let s = search(256);
    assert_eq!(s.len(), 128);
    for c in &s {
        c.verify().unwrap();
        assert_eq!(Some(c), chain_for(c.target), "{}", c.target);
    }
}

#[test]
fn secondary_criteria_only_improve() {
    let (first, stats) = search::search_lengths(4096);
    assert!(stats.fallback.is_empty());
    for (c, f) in table().iter().zip(&first) {
        assert_eq!(c.target, f.target);
        assert_eq!(c.additions(), f.additions(), "{}", c.target);
        let (sc, sf) = (
            search::secondary_cost(c).unwrap(),
            search::secondary_cost(f).unwrap(),
        );
        assert!(sc <= sf, "{}: {sc:?} > {sf:?}", c.target);
        assert!(sc.depth <= 3);
        assert!(sc.depth as usize <= c.additions());
    }
    // 805: 5 = 4+1, 161 = 5·32+1, 805 = 161·4+161 is depth 3; nothing shallower.
    assert_eq!(
        search::secondary_cost(chain_for(805).unwrap())
            .unwrap()
            .depth,
        3
    );
    // 4095 = 2^12 − 1: one step, 12 + 1 − 0 digits longer than X.
    let c = search::secondary_cost(chain_for(4095).unwrap()).unwrap();
    assert_eq!((c.depth, c.extra_active_digits, c.extra_length), (1, 0, 13));
}

#[test]
fn render_parse_roundtrip() {
    let t = table().to_vec();
    assert_eq!(parse_table(&render_table(&t)).unwrap(), t);
    let d: Vec<Chain> = [1u64, 7, 805, 4095, 12345, 1 << 40, u64::MAX]
        .iter()
        .map(|&k| double_and_add(k))
        .collect();
    assert_eq!(parse_table(&render_table(&d)).unwrap(), d);
}

#[test]
fn parse_errors_are_typed() {
    for bad in [
        "5",
        "5 1 2",
        "x 1 ; +e0<<2 +e0<<0",
        "5 2 ; +e0<<2 +e0<<0",
        "5 1 ; e0<<2 +e0<<0",
        "5 1 ; +e0<<2",
        "5 1 ; +e0<2 +e0<<0",
        "5 1 ; +e0<<x +e0<<0",
        "5 1 ; +e1<<2 +e0<<0",
        "5 1 ; +e0<<0 -e0<<0",
        "5 1 ; +e0<<200 +e0<<0",
        "7 1 ; +e0<<2 +e0<<0",
        "5 1 ; +e0<<2 +e0<<0 = 6 -> 5",
        "5 1 ; +e0<<2 +e0<<0 = 5 => 5",
        "5 1 ; +e0<<2 +e0<<0 = 5 -> 3",
    ] {
        let text = format!("# header\n\n1 0\n{bad}\n");
        match parse_table(&text) {
            Err(ChainError::Parse { line, message }) => {
                assert_eq!(line, 4, "{bad}");
                assert!(!message.is_empty());
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    assert_eq!(parse_table("# only a comment\n").unwrap(), vec![]);
}

#[test]
fn evaluation_errors() {
    let st = |a, a_shift, a_negative, b, b_shift, b_negative| ChainStep {
        a,
        a_shift,
        a_negative,
        b,
        b_shift,
        b_negative,
    };
    // One step from element 0 (`1`) to 3, and how each bad form fails.
    for (step, error) in [
        (
            st(1, 0, false, 0, 0, false),
            ChainError::InvalidIndex { step: 0, index: 1 },
        ),
        (
            st(0, 0, false, 0, 0, true),
            ChainError::ZeroResult { step: Some(0) },
        ),
        (
            st(0, 64, false, 0, 0, false),
            ChainError::Overflow { step: Some(0) },
        ),
        (
            st(0, 130, false, 0, 0, false),
            ChainError::Overflow { step: Some(0) },
        ),
    ] {
        let c = Chain {
            target: 3,
            steps: vec![step],
        };
        assert_eq!(c.evaluate(), Err(error));
    }
    let c = Chain {
        target: 7,
        steps: vec![st(0, 2, false, 0, 0, false)],
    };
    assert_eq!(
        c.verify(),
        Err(ChainError::TargetMismatch {
            target: 7,
            value: 5
        })
    );
    assert!(!c.verify().unwrap_err().to_string().is_empty());
    // 2^t·k needs nothing more.
    let c = Chain {
        target: 40,
        steps: vec![st(0, 2, false, 0, 0, false)],
    };
    assert_eq!(c.verify(), Ok(()));
    assert_eq!(c.elements(), vec![1, 5]);
}

#[test]
fn step_value_reports_raw_and_zeros() {
    let s = ChainStep {
        a: 0,
        a_shift: 0,
        a_negative: false,
        b: 1,
        b_shift: 1,
        b_negative: false,
    };
    // 5 + 2·3 = 11
    assert_eq!(Chain::step_value(5, 3, &s), Ok((11, 0)));
    let s = ChainStep {
        a: 0,
        a_shift: 0,
        a_negative: true,
        b: 1,
        b_shift: 0,
        b_negative: false,
    };
    // −5 + 13 = 8 = 2^3·1
    assert_eq!(Chain::step_value(5, 13, &s), Ok((8, 3)));
    assert_eq!(
        Chain::step_value(5, 5, &s),
        Err(ChainError::ZeroResult { step: None })
    );
    // Chains produced by the search always have a positive raw value.
    for c in table() {
        let v = c.elements();
        for (i, s) in c.steps.iter().enumerate() {
            let (r, z) = Chain::step_value(v[s.a] as i128, v[s.b] as i128, s).unwrap();
            assert!(r > 0 && r < 1 << search::R_MAX);
            assert_eq!((r >> z) as u64, v[i + 1]);
            assert!(s.a_shift == 0 || s.b_shift == 0);
        }
    }
}

#[test]
fn double_and_add_signed_digits() {
    // 1·2^4 − 1·2^2 + 1 = 13 (LSB first), and a trailing zero: 26.
    let c = double_and_add_signed(&[1, 0, -1, 0, 1]);
    assert_eq!((c.target, c.additions(), c.evaluate()), (13, 2, Ok(13)));
    let c = double_and_add_signed(&[0, 1, 0, -1, 0, 1]);
    assert_eq!((c.target, c.additions(), c.evaluate()), (26, 2, Ok(13)));
    c.verify().unwrap();
    // Non-NAF vectors and a negative leading digit (computes |value|).
    let c = double_and_add_signed(&[-1, -1, -1, 1]);
    assert_eq!((c.target, c.additions(), c.evaluate()), (1, 3, Ok(1)));
    let c = double_and_add_signed(&[1, 0, 0, -1]);
    assert_eq!((c.target, c.evaluate()), (7, Ok(7)));
    assert_eq!(double_and_add(1).additions(), 0);
    for k in 1..2000u64 {
        let n = naf(k);
        assert!(n.windows(2).all(|w| w[0] == 0 || w[1] == 0));
        assert_eq!(
            n.iter()
                .enumerate()
                .map(|(i, &d)| (d as i64) << i)
                .sum::<i64>(),
            k as i64
        );
        double_and_add(k).verify().unwrap();
    }
}

#[test]
fn length_five_level_is_exercised() {
    // Above 2^13 a few odd targets need five additions; check the level-5 path.
    let s = search::search_lengths(16384).0;
    let five: Vec<&Chain> = s.iter().filter(|c| c.additions() == 5).collect();
    assert!(!five.is_empty());
    for c in five {
        c.verify().unwrap();
        assert_eq!(*eval_plain(c).last().unwrap(), c.target as i128);
    }
}

/// Regenerates the whole ASC* table (every odd k < 4096) and compares it with the committed
/// `table12.txt` (about 3 s in release, which CI runs).
#[test]
fn committed_table_is_reproducible() {
    assert_eq!(render_table(&search(4096)), include_str!("table12.txt"));
}

/// Independent lower-bound check with a naive enumeration (no deduplication,
/// plain i128 arithmetic): every chain of at most three steps with
/// `|r| < 2^13`. Targets it reaches must have exactly that length in the
/// table; all others must have length 4 in the table.
#[test]
fn naive_enumeration_agrees_up_to_three_steps() {
    const LIMIT: i128 = 1 << 13;
    fn next(elems: &[i128], out: &mut Vec<i128>) {
        out.clear();
        for &x in elems {
            for &y in elems {
                for e in 0..=13u32 {
                    for sx in [1i128, -1] {
                        for sy in [1i128, -1] {
                            let r = sx * (x << e) + sy * y;
                            if r != 0 && r.abs() < LIMIT {
                                let mut v = r.abs();
                                while v % 2 == 0 {
                                    v /= 2;
                                }
                                out.push(v);
                            }
                        }
                    }
                }
            }
        }
    }
    fn dfs(elems: &mut Vec<i128>, depth: u8, best: &mut [u8]) {
        if depth == 3 {
            return;
        }
        let mut cands = Vec::new();
        next(elems, &mut cands);
        cands.sort_unstable();
        cands.dedup();
        for v in cands {
            if elems.contains(&v) {
                continue;
            }
            if v < 4096 {
                let b = &mut best[(v / 2) as usize];
                *b = (*b).min(depth + 1);
            }
            elems.push(v);
            dfs(elems, depth + 1, best);
            elems.pop();
        }
    }
    let mut best = vec![u8::MAX; 2048];
    best[0] = 0;
    dfs(&mut vec![1], 0, &mut best);
    for (i, &b) in best.iter().enumerate() {
        let k = 2 * i as u64 + 1;
        let l = chain_for(k).unwrap().additions();
        if b <= 3 {
            assert_eq!(l, b as usize, "{k}");
        } else {
            assert_eq!(l, 4, "{k}");
        }
    }
}

#[test]
fn replay_on_plain_integers() {
    let x: i128 = -12345;
    for c in table().iter().step_by(7) {
        let vals = c
            .replay(x, |p, q, s, zeros| {
                let p = if s.a_negative {
                    -(p << s.a_shift)
                } else {
                    p << s.a_shift
                };
                let q = if s.b_negative {
                    -(q << s.b_shift)
                } else {
                    q << s.b_shift
                };
                let r = p + q;
                assert_eq!(r % (1 << zeros), 0);
                r >> zeros
            })
            .unwrap();
        assert_eq!(*vals.last().unwrap(), c.target as i128 * x, "{}", c.target);
    }
}

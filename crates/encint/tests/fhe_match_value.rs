//! Clear tables of matches on the family (`match_value`, `match_value_or`): in clear mode
//! against a plain map on random tables and edge inputs, on real keys at 8, 16 and 64
//! bits as encryption gives the values, and the typed errors of a bad table.

use std::collections::HashMap;

use encint::fhe::{
    compile, compile_with, set_server_key, FheBool, FheInt16, FheInt8, FheUint16, FheUint64,
    FheUint8, FheValue, MatchValues,
};
use encint::typed::IntType;
use encint::{ClientKey, Error, DEFAULT_PARAMETERS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A table's pairs.
type Pairs<'a> = &'a [(i128, i128)];

/// A random value of `ty`, often an edge.
fn value(rng: &mut StdRng, ty: IntType) -> i128 {
    match rng.gen_range(0..4) {
        0 => ty.min(),
        1 => ty.max(),
        2 => ty.wrap(rng.gen_range(-2..=2)),
        _ => ty.wrap(rng.r#gen::<u128>() as i128),
    }
}

#[test]
fn random_tables_in_clear_mode() {
    let mut rng = StdRng::seed_from_u64(11);
    for (bits, signed) in [
        (2, false),
        (5, true),
        (8, false),
        (8, true),
        (16, true),
        (32, false),
        (64, true),
    ] {
        let ty = IntType::new(bits, signed).unwrap();
        let out = IntType::new([3, 8, 16, 64][rng.gen_range(0..4)], rng.gen_bool(0.5)).unwrap();
        let mut table: HashMap<i128, i128> = HashMap::new();
        for _ in 0..rng.gen_range(0..10) {
            table.insert(value(&mut rng, ty), value(&mut rng, out));
        }
        let pairs: Vec<(i128, i128)> = table.iter().map(|(&i, &o)| (i, o)).collect();
        let default = value(&mut rng, out);
        let closed = pairs.clone();
        let f = compile_with(ty, move |x: FheValue| {
            let (y, found) = x.match_value(&closed, default, out).expect("a table");
            (y, found)
        })
        .unwrap();
        let mut probes: Vec<i128> = pairs.iter().map(|&(i, _)| i).collect();
        probes.extend([ty.min(), ty.max(), 0]);
        probes.extend((0..10).map(|_| value(&mut rng, ty)));
        for v in probes {
            let want = table.get(&v).copied().unwrap_or(default);
            let hit = i128::from(table.contains_key(&v));
            assert_eq!(
                f.run_clear(&[v]).unwrap(),
                vec![want, hit],
                "{ty} -> {out} on {v}"
            );
        }
    }
}

#[test]
fn typed_methods_in_clear_mode() {
    // The square of each value of a u8 below 16 as a u16, 0 elsewhere.
    let squares = MatchValues::new((0u8..16).map(|v| (v, u16::from(v) * u16::from(v)))).unwrap();
    let f = compile(move |x: FheUint8| {
        let (y, found): (FheUint16, FheBool) = x.match_value(&squares).unwrap();
        (y, found)
    })
    .unwrap();
    for v in 0..=255u8 {
        let want = if v < 16 {
            vec![i128::from(v) * i128::from(v), 1]
        } else {
            vec![0, 0]
        };
        assert_eq!(f.run_clear(&[v.into()]).unwrap(), want, "{v}");
    }
    let signs = MatchValues::new([(i16::MIN, -1i16), (-1, -1), (0, 0), (i16::MAX, 1)]).unwrap();
    let g =
        compile(move |x: FheInt16| -> FheInt8 { x.match_value_or(&signs, 7).unwrap() }).unwrap();
    for (v, want) in [
        (i16::MIN, -1),
        (-1, -1),
        (0, 0),
        (i16::MAX, 1),
        (5, 7),
        (-300, 7),
    ] {
        assert_eq!(g.run_clear(&[v.into()]).unwrap(), vec![want], "{v}");
    }
}

#[test]
fn on_real_keys_at_eight_sixteen_and_64_bits() {
    let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
    set_server_key(key);
    let bytes = MatchValues::new([(0u8, 1u8), (200, 2), (255, 3)]).unwrap();
    for v in [0u8, 200, 255, 7] {
        let x = FheUint8::encrypt(v, &client).unwrap();
        let (y, found): (FheUint8, FheBool) = x.match_value(&bytes).unwrap();
        let want = match v {
            0 => 1,
            200 => 2,
            255 => 3,
            _ => 0,
        };
        assert_eq!(y.decrypt::<u8>(&client).unwrap(), want, "{v}");
        assert_eq!(found.decrypt(&client).unwrap(), want != 0, "{v}");
    }
    let words = MatchValues::new([(-32768i16, 9i16), (-1, 8), (12345, -7)]).unwrap();
    for (v, want) in [(-32768i16, 9i16), (-1, 8), (12345, -7), (12344, -1)] {
        let x = FheInt16::encrypt(v, &client).unwrap();
        let y: FheInt16 = x.match_value_or(&words, -1).unwrap();
        assert_eq!(y.decrypt::<i16>(&client).unwrap(), want, "{v}");
    }
    let ids = MatchValues::new([(u64::MAX, 1u64 << 40), (1 << 63, 5)]).unwrap();
    for (v, want) in [(u64::MAX, 1u64 << 40), (1 << 63, 5), ((1 << 63) + 1, 0)] {
        let x = FheUint64::encrypt(v, &client).unwrap();
        let (y, _): (FheUint64, FheBool) = x.match_value(&ids).unwrap();
        assert_eq!(y.decrypt::<u64>(&client).unwrap(), want, "{v}");
    }
    // Bad tables: typed errors before anything runs.
    assert!(matches!(
        MatchValues::new([(1, 2), (1, 3)]),
        Err(Error::InvalidInput(_))
    ));
    let (u8t, i8t) = (
        IntType::new(8, false).unwrap(),
        IntType::new(8, true).unwrap(),
    );
    let x = FheValue::encrypt(1, u8t, &client).unwrap();
    let cases: [(Pairs, i128, bool); 4] = [
        (&[(256, 1)], 0, true),
        (&[(1, -129)], 0, true),
        (&[(1, 1)], 128, true),
        (&[(1, 1), (1, 2)], 0, false),
    ];
    for (pairs, default, out_of_range) in cases {
        match x.match_value(pairs, default, i8t) {
            Err(Error::OutOfRange(_)) if out_of_range => {}
            Err(Error::InvalidInput(_)) if !out_of_range => {}
            other => panic!("{pairs:?}, {default}: {:?}", other.map(|_| ())),
        }
    }
}

//! The cost table of Parmesan (Table 5): our circuits' bootstraps, depth, width
//! and largest LUT-input quadratic weight beside Parmesan's published figures.

use encint_core::circuit::{Builder, Cost};

use crate::{Arith, Config, SInt};

/// One row of the cost table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CostRow {
    /// Operation name: `add`, `sub`, `scalar_mul`, `mul`, `squ`, `sgn`, `max`, `round`.
    pub op: &'static str,
    /// Operand width in bits (digits).
    pub bits: usize,
    /// The scalar or the rounding position, if the operation has one.
    pub arg: Option<i64>,
    /// Our circuit's cost.
    pub cost: Cost,
    /// Parmesan's bootstraps and depth (Table 5 and Appendix D of the Parmesan paper).
    pub parmesan: (u64, u32),
}

/// A row definition: operation, bits, argument, Parmesan's (bootstraps, depth).
pub type RowSpec = (&'static str, usize, Option<i64>, (u64, u32));

/// The rows of the table.
pub const ROWS: &[RowSpec] = &[
    ("add", 4, None, (8, 2)),
    ("add", 8, None, (16, 2)),
    ("add", 16, None, (32, 2)),
    ("add", 32, None, (64, 2)),
    ("sub", 4, None, (8, 2)),
    ("sub", 8, None, (16, 2)),
    ("sub", 16, None, (32, 2)),
    ("sub", 32, None, (64, 2)),
    ("scalar_mul", 16, Some(4095), (32, 2)),
    ("scalar_mul", 16, Some(4097), (32, 2)),
    ("scalar_mul", 16, Some(4096), (0, 0)),
    ("scalar_mul", 16, Some(805), (114, 6)),
    ("scalar_mul", 16, Some(3195), (114, 6)),
    ("mul", 4, None, (40, 7)),
    ("mul", 8, None, (176, 15)),
    ("mul", 16, None, (725, 23)),
    ("mul", 32, None, (2617, 41)),
    ("squ", 4, None, (24, 5)),
    ("squ", 8, None, (122, 11)),
    ("squ", 16, None, (488, 19)),
    ("squ", 32, None, (1837, 27)),
    ("sgn", 32, None, (11, 3)),
    ("max", 32, None, (109, 6)),
    ("round", 32, Some(5), (56, 4)),
];

/// Builds one operation on fresh `bits`-digit inputs and returns its circuit's cost.
pub fn cost_of(ar: &Arith, op: &str, bits: usize, arg: Option<i64>) -> Option<Cost> {
    let mut b = Builder::new();
    let x = SInt::input(&mut b, bits);
    let y = SInt::input(&mut b, bits);
    let out = match op {
        "add" => ar.add(&mut b, &x, &y).digits,
        "sub" => ar.sub(&mut b, &x, &y).digits,
        "scalar_mul" => ar.scalar_mul(&mut b, &x, arg?).digits,
        "mul" => ar.mul(&mut b, &x, &y).digits,
        "squ" => ar.square(&mut b, &x).digits,
        "sgn" => vec![ar.signum(&mut b, &x)],
        "max" => ar.max(&mut b, &x, &y).digits,
        "min" => ar.min(&mut b, &x, &y).digits,
        "abs" => ar.abs(&mut b, &x).digits,
        "round" => ar.round_at(&mut b, &x, usize::try_from(arg?).ok()?).digits,
        "lt" => vec![ar.lt(&mut b, &x, &y)],
        "ge" => vec![ar.ge(&mut b, &x, &y)],
        "eq" => vec![ar.eq(&mut b, &x, &y)],
        _ => return None,
    };
    Some(b.finish(out).cost())
}

/// The whole table for a configuration.
pub fn cost_table(config: Config) -> Vec<CostRow> {
    let ar = Arith::new(config);
    ROWS.iter()
        .map(|&(op, bits, arg, parmesan)| CostRow {
            op,
            bits,
            arg,
            cost: cost_of(&ar, op, bits, arg).expect("table rows are valid operations"),
            parmesan,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Never more bootstraps than Parmesan, and never deeper, except for the products and
    /// squares, whose block circuits trade depth (a ripple of column carries) for far
    /// fewer bootstraps, and the maximum (its comparison a ripple of radix-4 carries).
    #[test]
    fn parmesan_form_never_worse_than_parmesan() {
        for row in cost_table(Config::PARMESAN) {
            let depth_ok =
                matches!(row.op, "mul" | "squ" | "max") || row.cost.depth <= row.parmesan.1;
            assert!(
                row.cost.bootstraps <= row.parmesan.0 && depth_ok,
                "{} {} {:?}: ours {:?} vs Parmesan {:?}",
                row.op,
                row.bits,
                row.arg,
                row.cost,
                row.parmesan
            );
        }
    }

    #[test]
    fn budget_form_fits_25() {
        for row in cost_table(Config::BUDGET_25) {
            assert!(
                row.cost.max_qweight <= 25,
                "{} {}: {:?}",
                row.op,
                row.bits,
                row.cost
            );
        }
    }
}

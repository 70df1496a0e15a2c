//! `encint infer`: private inference of a quantised neural network on encrypted images.
//! The client encrypts the images, the server runs the model's circuit with the server key
//! only (the weights in the clear, or encrypted by the model owner under the same key
//! set), the client decrypts the logits; every image's logits are checked against the
//! model computed in plain integers.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use encint::fv_bits::FvBitsClientKey;
use encint::infer::{argmax, FvInference, Images, Inference, Model, Weights, MAX_BATCH};
use encint::{ClientKey, Server};
use serde::Serialize;

use crate::backend::{with_digits, BackendArgs, BackendKind, DigitSetup, Exec};
use crate::error::{internal, mismatch, usage};
use crate::progress::spinner;
use crate::timing::{pool, print_json};
use crate::{AnyResult, CliResult};

/// Where the weights are during the encrypted run.
#[derive(Clone, Copy, ValueEnum)]
pub enum WeightsArg {
    /// In the clear on the server (products by clear weights need no bootstrap).
    Clear,
    /// Encrypted under the client's key set (the server sees neither image nor weights).
    Encrypted,
}

/// `encint infer --help`.
pub const LONG_ABOUT: &str =
    "Private inference: classify handwritten digits (scikit-learn's 8x8 digits) \
with a small quantised neural network while the images stay encrypted. Two models are built \
in: --model mlp (the default: 64 pixels -> 32 hidden units with ReLU -> 10 classes) and \
--model cnn (a 3x3 convolution with 4 channels, 8x8 -> 6x6x4, ReLU, then a dense layer to \
10 classes); --model PATH reads a model file. The client encrypts each image, the server computes the ten \
class scores with the server key only, the client decrypts them. The model's weights are either \
in the clear on the server or encrypted by the model owner under the same key set \
(--weights encrypted). Every decrypted score is checked against the model computed in plain \
integers; the command exits non-zero on any difference.\n\n\
The built-in models and their 450 test images are the ones \
scripts/train_digits.py writes. --clear runs the same circuit on the clear executor \
(no keys, seconds) over every test image and prints the accuracy; without --clear, keys are \
generated and --images N images are classified for real, with the time per image and the \
bootstraps per image.";

/// `encint infer`.
#[derive(Args)]
pub struct InferArgs {
    /// Run the circuit on the clear executor (no encryption) over the test images.
    #[arg(long)]
    clear: bool,
    /// Number of test images to classify, at least 1 (default: 1 encrypted, all with
    /// --clear).
    #[arg(long, value_parser = crate::arg_values::count)]
    images: Option<usize>,
    /// Where the weights are: in the clear on the server, or encrypted.
    #[arg(long, value_enum, default_value = "clear")]
    weights: WeightsArg,
    /// Images per circuit, 1 to 256 (default: all of them encrypted, at most 256; 16 with
    /// --clear).
    #[arg(long, value_parser = |s: &str| crate::arg_values::in_range(s, 1, MAX_BATCH))]
    batch: Option<usize>,
    /// Threads for bootstrapping (default: all cores; at most 4 per core).
    #[arg(long, value_parser = crate::arg_values::threads)]
    threads: Option<usize>,
    /// The model: `mlp` or `cnn` (built in), or the path of a model file (JSON, as
    /// scripts/train_digits.py writes).
    #[arg(long, default_value = "mlp")]
    model: String,
    /// A file of test images and labels (JSON; default: the built-in test split).
    #[arg(long)]
    test_images: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Run on FV slots instead of TFHE: one image per slot, every image in one batch (up
    /// to the parameter set's 8,192 to 32,768 slots); the set comes from the model's
    /// depth. With --clear, the FV plan's polynomials in plain integers.
    #[arg(long)]
    fv: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// What `encint infer` measured.
#[derive(Serialize)]
struct Report {
    model: String,
    mode: &'static str,
    weights: &'static str,
    images: usize,
    batch: usize,
    threads: usize,
    model_accuracy: f64,
    circuit_accuracy: f64,
    mismatches: usize,
    bootstraps_per_image: f64,
    depth: u32,
    types: String,
    keygen_s: Option<f64>,
    encrypt_s: Option<f64>,
    server_s: Option<f64>,
    server_s_per_image: Option<f64>,
    /// Where the bootstraps ran: `cpu`, `gpu`, or `mpi` with its rank count.
    backend: String,
    /// On FV slots: the plan and what it measured.
    fv: Option<FvReport>,
}

/// What `encint infer --fv` planned and measured.
#[derive(Serialize)]
struct FvReport {
    set: String,
    slots: usize,
    depth: u32,
    products: usize,
    activation_degrees: Vec<usize>,
    upload_bytes: usize,
    /// The server's time divided by the set's slots: the time per image of a full batch
    /// (a batch costs the same however many slots hold images).
    server_s_per_image_full_batch: Option<f64>,
    /// The smallest noise budget left in the decrypted logits (bits).
    noise_budget_bits: Option<f64>,
}

/// `encint infer`: exits non-zero when a decrypted (or clear-circuit) logit differs from
/// the plain-integer model.
pub fn run(a: InferArgs) -> CliResult {
    let model = Model::builtin_or_file(&a.model)?;
    let test = match &a.test_images {
        Some(p) => Images::load(p, &model)?,
        None => Images::digits_test(&model)?,
    };
    let available = test.images.len();
    let count = a.images.unwrap_or(if a.clear { available } else { 1 });
    if count > available {
        return Err(usage(format!(
            "--images {count}: the test file holds {available} images"
        )));
    }
    let batch = a
        .batch
        .unwrap_or(if a.clear { 16 } else { count.min(MAX_BATCH) });
    let weights = match a.weights {
        WeightsArg::Clear => Weights::Clear,
        WeightsArg::Encrypted => Weights::Encrypted,
    };
    if a.clear && a.backend.backend != BackendKind::Cpu {
        return Err(usage(
            "--clear runs on the clear executor; --backend is for encrypted runs",
        ));
    }
    // A backend this build or machine lacks is named before any key is generated.
    if !a.backend.wants_mpi()? {
        a.backend.check()?;
    }
    let pool = pool(a.threads)?;
    let threads = pool.current_num_threads();
    let images = &test.images[..count];
    let labels = &test.labels[..count];
    let mut want = Vec::with_capacity(count);
    for image in images {
        want.push(model.logits(image)?);
    }
    let model_right = want
        .iter()
        .zip(labels)
        .filter(|(l, &y)| argmax(l) == y)
        .count();
    let mut report = Report {
        model: a.model.clone(),
        mode: if a.clear { "clear" } else { "encrypted" },
        weights: weights.name(),
        images: count,
        batch: count,
        threads,
        model_accuracy: model_right as f64 / count as f64,
        circuit_accuracy: 0.0,
        mismatches: 0,
        bootstraps_per_image: 0.0,
        depth: 0,
        types: String::new(),
        keygen_s: None,
        encrypt_s: None,
        server_s: None,
        server_s_per_image: None,
        backend: if a.fv { "fv" } else { "cpu" }.into(),
        fv: None,
    };
    if a.fv {
        if a.backend.backend != BackendKind::Cpu || a.batch.is_some() {
            return Err(usage(
                "--fv runs every image in one batch on this process's CPUs: no \
                        --backend or --batch",
            ));
        }
        let got = pool.install(|| run_fv(&model, weights, images, a.clear, report))?;
        return finish(got.0, &got.1, &want, labels, a.json);
    }
    // Planned for the thread count it runs on.
    let inference = pool.install(|| Inference::compile(&model, weights, batch.min(count)))?;
    let cost = inference.cost();
    report.batch = inference.batch();
    report.bootstraps_per_image = inference.bootstraps_per_image();
    report.depth = cost.depth;
    report.types = types_line(&inference);
    if a.clear {
        let got = run_clear(&inference, images)?;
        return finish(report, &got, &want, labels, a.json);
    }
    let setup = DigitSetup::fresh(a.backend.params(), a.threads);
    let t = Instant::now();
    // Under MPI only rank 0 runs this body (the others serve its bootstraps).
    with_digits(&a.backend, setup, |server, client, exec| {
        report.keygen_s = Some(t.elapsed().as_secs_f64());
        let kind = format!("{:?}", a.backend.backend).to_lowercase();
        report.backend = format!("{kind}{}", exec.place());
        let client = client.ok_or_else(|| internal("fresh keys come with a client key"))?;
        let got = run_encrypted(
            &inference,
            images,
            (server, client, exec),
            &mut report,
            a.json,
        )?;
        if let Some(line) = exec.report().filter(|_| !a.json) {
            println!("{line}");
        }
        finish(report, &got, &want, labels, a.json)
    })
}

/// `--fv`: the model on FV slots, every image in one batch (or the plan in plain
/// integers with `clear`); the report and the logits.
fn run_fv(
    model: &Model,
    weights: Weights,
    images: &[Vec<i64>],
    clear: bool,
    mut report: Report,
) -> AnyResult<(Report, Vec<Vec<i64>>)> {
    let inference = FvInference::compile(model, weights)?;
    let plan = inference.plan();
    if images.len() > inference.batch() {
        return Err(usage(format!(
            "--images {}: one FV batch holds {} images",
            images.len(),
            inference.batch()
        )));
    }
    report.depth = plan.depth;
    let mut fv = FvReport {
        set: plan.set.name().to_string(),
        slots: plan.set.slots(),
        depth: plan.depth,
        products: plan.products,
        activation_degrees: plan.degrees.clone(),
        upload_bytes: plan.uploads * plan.ciphertext_bytes,
        server_s_per_image_full_batch: None,
        noise_budget_bits: None,
    };
    if clear {
        let got = inference.run_clear(images)?;
        report.fv = Some(fv);
        return Ok((report, got));
    }
    let pb = spinner(&format!("generating FV keys ({})", plan.set.name()));
    let t = Instant::now();
    let (client, server) = FvBitsClientKey::generate(&plan.set)?;
    pb.finish_and_clear();
    report.keygen_s = Some(t.elapsed().as_secs_f64());
    let t = Instant::now();
    let pixels = inference.encrypt_images(images, &client)?;
    let w = match weights {
        Weights::Clear => None,
        Weights::Encrypted => Some(inference.encrypt_weights(&client)?),
    };
    report.encrypt_s = Some(t.elapsed().as_secs_f64());
    let pb = spinner(&format!(
        "server: {} images in one batch, {} products",
        images.len(),
        plan.products
    ));
    let t = Instant::now();
    let logits = inference.run(&server, &pixels, w.as_ref())?;
    let server_s = t.elapsed().as_secs_f64();
    pb.finish_and_clear();
    report.server_s = Some(server_s);
    report.server_s_per_image = Some(server_s / images.len() as f64);
    fv.server_s_per_image_full_batch = Some(server_s / plan.set.slots() as f64);
    let mut budget = f64::INFINITY;
    for l in &logits {
        budget = budget.min(client.noise_budget_ints(l)?);
    }
    fv.noise_budget_bits = Some(budget);
    let got = inference.decrypt(&logits, &client)?;
    report.fv = Some(fv);
    Ok((report, got))
}

/// Accuracy and mismatches of the circuit's logits `got` against the plain-integer
/// model's `want`; prints the report; errors on any difference.
fn finish(
    mut report: Report,
    got: &[Vec<i64>],
    want: &[Vec<i64>],
    labels: &[usize],
    json: bool,
) -> CliResult {
    let count = got.len();
    let circuit_right = got
        .iter()
        .zip(labels)
        .filter(|(l, &y)| argmax(l) == y)
        .count();
    report.circuit_accuracy = circuit_right as f64 / count as f64;
    report.mismatches = got.iter().zip(want).filter(|(g, w)| g != w).count();
    if json {
        print_json(&report)?;
    } else {
        print_report(&report);
    }
    if report.mismatches > 0 {
        return Err(mismatch(format!(
            "{} of {count} images' logits differ from the plain-integer model",
            report.mismatches
        )));
    }
    Ok(())
}

fn types_line(inference: &Inference) -> String {
    let t = inference.types();
    let list = |v: &[encint::typed::IntType]| {
        v.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "pixels {}, accumulators [{}], activations [{}], weights {}, biases {}",
        t.input,
        list(&t.accumulators),
        list(&t.activations),
        t.weight,
        t.bias
    )
}

fn run_clear(inference: &Inference, images: &[Vec<i64>]) -> AnyResult<Vec<Vec<i64>>> {
    let mut out = Vec::with_capacity(images.len());
    for chunk in images.chunks(inference.batch()) {
        out.extend(inference.run_clear(chunk)?);
    }
    Ok(out)
}

/// The server, the client key and the executor of an encrypted run.
type Session<'a> = (&'a Server, &'a ClientKey, &'a dyn Exec);

fn run_encrypted(
    inference: &Inference,
    images: &[Vec<i64>],
    (server, client, exec): Session<'_>,
    report: &mut Report,
    quiet: bool,
) -> AnyResult<Vec<Vec<i64>>> {
    let t = Instant::now();
    let weights = match inference.weights() {
        Weights::Clear => None,
        Weights::Encrypted => Some(inference.encrypt_weights(client)?),
    };
    let batches = images
        .chunks(inference.batch())
        .map(|chunk| inference.encrypt_images(chunk, client))
        .collect::<encint::Result<Vec<_>>>()?;
    report.encrypt_s = Some(t.elapsed().as_secs_f64());
    let mut server_s = 0.0;
    let mut out = Vec::with_capacity(images.len());
    for (chunk, enc) in images.chunks(inference.batch()).zip(&batches) {
        let pb = (!quiet).then(|| {
            spinner(&format!(
                "server: {} images, {} bootstraps",
                chunk.len(),
                inference.cost().bootstraps
            ))
        });
        let t = Instant::now();
        let logits = exec.infer(inference, server, enc, weights.as_ref())?;
        server_s += t.elapsed().as_secs_f64();
        if let Some(pb) = pb {
            pb.finish_and_clear();
        }
        out.extend(inference.decrypt(&logits, chunk.len(), client)?);
    }
    report.server_s = Some(server_s);
    report.server_s_per_image = Some(server_s / images.len() as f64);
    Ok(out)
}

fn print_report(r: &Report) {
    println!(
        "encint infer: model {}, {} run, weights {}, {} images, {} per circuit, {} threads",
        r.model, r.mode, r.weights, r.images, r.batch, r.threads
    );
    if let Some(fv) = &r.fv {
        println!(
            "FV slots: set {} ({} slots), depth {}, {} products per batch, activation \
             polynomials of degree up to {:?}, {:.1} MiB uploaded",
            fv.set,
            fv.slots,
            fv.depth,
            fv.products,
            fv.activation_degrees,
            fv.upload_bytes as f64 / 1048576.0
        );
        if let (Some(full), Some(bits)) = (fv.server_s_per_image_full_batch, fv.noise_budget_bits) {
            println!(
                "a full batch of {} images would take the same server time: {:.4} s per \
                 image; noise budget left in the logits {bits:.1} bits",
                fv.slots, full
            );
        }
    } else {
        if r.mode == "encrypted" {
            println!("backend: {}", r.backend);
        }
        println!("types: {}", r.types);
        println!(
            "cost: {:.0} bootstraps per image, depth {}",
            r.bootstraps_per_image, r.depth
        );
    }
    if let (Some(k), Some(e), Some(s), Some(p)) =
        (r.keygen_s, r.encrypt_s, r.server_s, r.server_s_per_image)
    {
        println!("keys {k:.1} s, encryption {e:.2} s, server {s:.1} s ({p:.2} s per image)");
    }
    println!(
        "accuracy: plain-integer model {:.4}, {} circuit {:.4}",
        r.model_accuracy, r.mode, r.circuit_accuracy
    );
    if r.mismatches == 0 {
        println!(
            "every image's logits equal the plain-integer model's ({} images)",
            r.images
        );
    } else {
        println!(
            "{} images' logits differ from the plain-integer model",
            r.mismatches
        );
    }
}

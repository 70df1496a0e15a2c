//! The byte processor's links as files: a program's encrypted inputs ([`Uplink`], client to
//! server) and its encrypted outputs ([`Downlink`], server to client). Each is a ciphertext
//! envelope that carries, beside the nibbles, the [`Signature`] of the values it holds
//! (every element's name and kind, in circuit order), so that a server never runs one
//! program on the inputs of another (the nibble counts of `a[5]` and of
//! `x: fixed, y: fixed, z` agree, their meanings do not) and a client never reads one
//! program's outputs as another's.
//!
//! Payload: the tag `ENCASMI1` (inputs) or `ENCASMO1` (outputs), the signature (a list of
//! (name, kind) pairs, kind 0 a byte, 1 a fixed-point value, 2 eight bits), then the
//! nibbles ([`SeededNibbles`] or [`PackedNibbles`] as they are). Earlier releases wrote the
//! bare nibbles, without tag or signature: nothing in such a file says which program it
//! belongs to, so it is refused ([`crate::io::contents::Content::OldProcessorInputs`]).

use std::fmt;

use encint_isa::instr::Kind as DatumKind;
use encint_isa::vm::{self, Compiled};
use encint_tfhe::envelope::{self, Kind};
use encint_tfhe::{DigitParameters, PackedNibbles, SeededNibbles, Validate};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::io::contents::Content;
use crate::{Error, Result};

pub use crate::io::contents::{INPUTS_TAG, OUTPUTS_TAG};

/// Longest element name a link file may hold, in bytes.
const MAX_NAME: usize = 1024;

/// The shape of a program's inputs or outputs: each element's name (`x`, `a[3]`) and kind,
/// in circuit order. Two programs whose signatures differ never share a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature(Vec<(String, DatumKind)>);

impl Signature {
    /// The inputs of `c`.
    pub fn inputs(c: &Compiled) -> Signature {
        Signature(c.inputs.clone())
    }

    /// The outputs of `c`.
    pub fn outputs(c: &Compiled) -> Signature {
        Signature(c.outputs.iter().map(|(n, k, _)| (n.clone(), *k)).collect())
    }

    /// The elements: name and kind.
    pub fn elements(&self) -> &[(String, DatumKind)] {
        &self.0
    }

    /// Nibbles the elements take (a byte 2, a fixed-point value 4, eight bits 8).
    pub fn nibbles(&self) -> usize {
        self.0.iter().map(|(_, k)| vm::nibbles(*k)).sum()
    }

    fn to_wire(&self) -> Result<Vec<(String, u8)>> {
        self.0
            .iter()
            .map(|(name, kind)| {
                let code = match kind {
                    DatumKind::Byte => 0,
                    DatumKind::Fixed => 1,
                    DatumKind::Bits => 2,
                    other => {
                        return Err(Error::WrongOperation(format!(
                            "`{name}` is a {other:?}, not a program input or output"
                        )))
                    }
                };
                Ok((name.clone(), code))
            })
            .collect()
    }

    fn from_wire(w: &[(String, u8)]) -> std::result::Result<Signature, String> {
        if w.len() > encint_tfhe::io::MAX_NIBBLES {
            return Err(format!("{} elements in a signature", w.len()));
        }
        w.iter()
            .map(|(name, code)| {
                if name.len() > MAX_NAME {
                    return Err(format!("an element name of {} bytes", name.len()));
                }
                let kind = match code {
                    0 => DatumKind::Byte,
                    1 => DatumKind::Fixed,
                    2 => DatumKind::Bits,
                    c => return Err(format!("element kind {c} (0, 1 or 2)")),
                };
                Ok((name.clone(), kind))
            })
            .collect::<std::result::Result<_, _>>()
            .map(Signature)
    }
}

fn kind_name(k: DatumKind) -> &'static str {
    match k {
        DatumKind::Fixed => "fixed",
        DatumKind::Bits => "bits",
        _ => "byte",
    }
}

/// `a[5]: byte, x: fixed, z: byte`: an array's elements (`a[0]` to `a[4]` of one kind, in
/// order) as one entry; `none` for no element.
impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        let mut i = 0;
        while i < self.0.len() {
            let (name, kind) = &self.0[i];
            let base = name.strip_suffix("[0]");
            let run = base.map_or(1, |b| {
                let mut n = 1;
                while self
                    .0
                    .get(i + n)
                    .is_some_and(|(m, k)| k == kind && *m == format!("{b}[{n}]"))
                {
                    n += 1;
                }
                n
            });
            parts.push(match base {
                Some(b) => format!("{b}[{run}]: {}", kind_name(*kind)),
                None => format!("{name}: {}", kind_name(*kind)),
            });
            i += run;
        }
        if parts.is_empty() {
            return f.write_str("none");
        }
        f.write_str(&parts.join(", "))
    }
}

/// The payload of both links.
#[derive(Serialize, Deserialize)]
struct LinkPayload<T> {
    tag: [u8; 8],
    signature: Vec<(String, u8)>,
    nibbles: T,
}

/// The nibbles of one direction of [`Link`]: [`SeededNibbles`] from client to server,
/// [`PackedNibbles`] back.
pub trait LinkNibbles: Validate + DeserializeOwned + Serialize {
    /// The tag of the link's payload.
    const TAG: [u8; 8];
    /// What the link's envelope holds.
    const CONTENT: Content;
    /// The link in messages.
    const WHAT: &'static str;
    /// Number of nibbles.
    fn count(&self) -> usize;
}

impl LinkNibbles for SeededNibbles {
    const TAG: [u8; 8] = INPUTS_TAG;
    const CONTENT: Content = Content::ProcessorInputs;
    const WHAT: &'static str = "a program's encrypted inputs";
    fn count(&self) -> usize {
        self.len()
    }
}

impl LinkNibbles for PackedNibbles {
    const TAG: [u8; 8] = OUTPUTS_TAG;
    const CONTENT: Content = Content::ProcessorOutputs;
    const WHAT: &'static str = "a program's encrypted result";
    fn count(&self) -> usize {
        self.len()
    }
}

impl<T: LinkNibbles> LinkPayload<T> {
    /// The signature, checked against the tag and the nibble count.
    fn checked(&self) -> std::result::Result<Signature, String> {
        if self.tag != T::TAG {
            return Err("not a byte-processor link of this direction".into());
        }
        let s = Signature::from_wire(&self.signature)?;
        let len = self.nibbles.count();
        if s.nibbles() != len {
            return Err(format!(
                "the signature {s} takes {} nibbles, the file holds {len}",
                s.nibbles()
            ));
        }
        Ok(s)
    }
}

impl<T: LinkNibbles> Validate for LinkPayload<T> {
    fn validate(&self, params: &DigitParameters) -> std::result::Result<(), String> {
        self.checked()?;
        self.nibbles.validate(params)
    }
}

/// A program's encrypted inputs or outputs with their [`Signature`]: an [`Uplink`] or a
/// [`Downlink`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link<T> {
    signature: Signature,
    nibbles: T,
}

/// A program's encrypted inputs with their [`Signature`] (client to server): seeded
/// nibbles.
pub type Uplink = Link<SeededNibbles>;

/// A program's encrypted outputs with their [`Signature`] (server to client): packed
/// nibbles.
pub type Downlink = Link<PackedNibbles>;

impl<T: LinkNibbles> Link<T> {
    /// The signature of the values held.
    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// The nibbles: seeded in an uplink, packed in a downlink.
    pub fn nibbles(&self) -> &T {
        &self.nibbles
    }

    /// The ciphertext envelope of parameter set `params` (tag `ENCASMI1` for an uplink,
    /// `ENCASMO1` for a downlink).
    pub fn to_bytes(&self, params: &DigitParameters) -> Result<Vec<u8>> {
        let p = LinkPayload {
            tag: T::TAG,
            signature: self.signature.to_wire()?,
            nibbles: &self.nibbles,
        };
        Ok(envelope::seal(Kind::Ciphertext, params.id(), &p)?)
    }

    /// Reads [`Link::to_bytes`] output of the same direction: every check of the envelope
    /// reader, the signature against the nibble count. Another file (the other direction,
    /// an earlier release's bare nibbles too) is an error naming what it holds. Never
    /// panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let found = crate::io::contents::identify(bytes)?;
        if found != T::CONTENT {
            return Err(Error::Malformed(format!(
                "the file holds {}, not {}",
                found.name(),
                T::WHAT
            )));
        }
        let p: LinkPayload<T> = envelope::open_known(bytes, Kind::Ciphertext)?;
        let signature = p.checked().map_err(Error::InvalidInput)?;
        Ok(Link {
            signature,
            nibbles: p.nibbles,
        })
    }
}

impl super::Program {
    /// The signature of the program's inputs.
    pub fn input_signature(&self) -> Signature {
        Signature::inputs(self.compiled())
    }

    /// The signature of the program's outputs.
    pub fn output_signature(&self) -> Signature {
        Signature::outputs(self.compiled())
    }

    /// Client side: encrypts the inputs ([`super::Program::encrypt_inputs`]) into an
    /// uplink that names them.
    pub fn encrypt_uplink(
        &self,
        client: &encint_tfhe::ClientKey,
        data: &std::collections::HashMap<String, super::Datum>,
    ) -> Result<Uplink> {
        Ok(Uplink {
            signature: self.input_signature(),
            nibbles: self.encrypt_inputs(client, data)?,
        })
    }

    /// Errors unless `up` holds this program's inputs (names, kinds and order).
    pub fn check_uplink(&self, up: &Uplink) -> Result<()> {
        same_signature(&up.signature, &self.input_signature(), |got, want| {
            format!("the inputs were encrypted for a program with inputs {got}; this program takes {want}")
        })
    }

    /// Server side: [`super::Program::run`] on an uplink, refused before any work unless it
    /// holds this program's inputs ([`super::Program::check_uplink`]); the downlink names
    /// the outputs.
    pub fn run_uplink(&self, keys: &super::ProcessorKeys, up: &Uplink) -> Result<Downlink> {
        self.run_uplink_on(&keys.backend(), keys, up)
    }

    /// [`super::Program::run_uplink`] on another backend ([`super::Program::run_on`]).
    pub fn run_uplink_on<B>(
        &self,
        backend: &B,
        keys: &super::ProcessorKeys,
        up: &Uplink,
    ) -> Result<Downlink>
    where
        B: encint_core::exec::Backend<Value = encint_tfhe::Digit, Error = Error>,
    {
        self.check_uplink(up)?;
        Ok(Downlink {
            signature: self.output_signature(),
            nibbles: self.run_on(backend, keys, &up.nibbles)?,
        })
    }

    /// Errors unless `down` holds this program's outputs.
    pub fn check_downlink(&self, down: &Downlink) -> Result<()> {
        same_signature(&down.signature, &self.output_signature(), |got, want| {
            format!(
                "the result is of a program with outputs {got}; this program has outputs {want}"
            )
        })
    }

    /// Client side: decrypts a downlink of this program's outputs (checked first:
    /// [`super::Program::check_downlink`]).
    pub fn decrypt_downlink(
        &self,
        client: &encint_tfhe::ClientKey,
        down: &Downlink,
    ) -> Result<super::Outputs> {
        self.check_downlink(down)?;
        self.decrypt_outputs(client, &down.nibbles)
    }
}

/// Errors ([`Error::TypeMismatch`], the message `message(got, want)`) unless `got` is `want`.
fn same_signature(
    got: &Signature,
    want: &Signature,
    message: impl FnOnce(&Signature, &Signature) -> String,
) -> Result<()> {
    if got != want {
        return Err(Error::TypeMismatch(message(got, want)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(elements: &[(&str, DatumKind)]) -> Signature {
        Signature(elements.iter().map(|(n, k)| (n.to_string(), *k)).collect())
    }

    #[test]
    fn signatures_print_arrays_as_one_entry_and_round_trip() {
        let a5 = sig(&[
            ("a[0]", DatumKind::Byte),
            ("a[1]", DatumKind::Byte),
            ("a[2]", DatumKind::Byte),
            ("a[3]", DatumKind::Byte),
            ("a[4]", DatumKind::Byte),
        ]);
        assert_eq!(a5.to_string(), "a[5]: byte");
        assert_eq!(a5.nibbles(), 10);
        let xyz = sig(&[
            ("x", DatumKind::Fixed),
            ("y", DatumKind::Fixed),
            ("z", DatumKind::Byte),
        ]);
        assert_eq!(xyz.to_string(), "x: fixed, y: fixed, z: byte");
        // Same nibble count, another signature.
        assert_eq!(xyz.nibbles(), a5.nibbles());
        assert_ne!(xyz, a5);
        let mixed = sig(&[
            ("a[0]", DatumKind::Byte),
            ("a[1]", DatumKind::Byte),
            ("i", DatumKind::Byte),
        ]);
        assert_eq!(mixed.to_string(), "a[2]: byte, i: byte");
        assert_eq!(sig(&[]).to_string(), "none");
        for s in [a5, xyz, mixed] {
            assert_eq!(Signature::from_wire(&s.to_wire().unwrap()).unwrap(), s);
        }
        assert!(Signature::from_wire(&[("x".into(), 3)]).is_err());
        assert!(Signature::from_wire(&[("x".repeat(2000), 0)]).is_err());
    }
}

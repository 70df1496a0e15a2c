//! No freed heap block holds client-key bytes after sealing or opening a client key
//! (the secret key is wiped wherever it was copied): a global allocator scans every block freed while armed for a
//! window of the serialized secret key.

// Unsafe code: the scanning allocator wraps the system allocator and reads freed blocks.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use encint_tfhe::envelope::{self, Kind};
use encint_tfhe::{ClientKey, DEFAULT_PARAMETERS};
use zeroize::Zeroizing;

const WINDOW: usize = 1024;

struct Scanner;

static ARMED: AtomicBool = AtomicBool::new(false);
static HITS: AtomicUsize = AtomicUsize::new(0);
static mut PATTERN: [u8; WINDOW] = [0; WINDOW];

unsafe impl GlobalAlloc for Scanner {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if ARMED.load(Ordering::SeqCst) && layout.size() >= WINDOW {
            // SAFETY: the block is still allocated and `layout.size()` bytes long; PATTERN
            // is written only while disarmed.
            let block = unsafe { std::slice::from_raw_parts(ptr, layout.size()) };
            let pattern = unsafe { &*std::ptr::addr_of!(PATTERN) };
            if block.windows(WINDOW).any(|w| w == pattern) {
                HITS.fetch_add(1, Ordering::SeqCst);
            }
        }
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Scanner = Scanner;

static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn client_key_bytes_are_not_left_in_freed_memory() {
    let _g = SERIAL.lock().unwrap();
    let (client, _server) = ClientKey::generate_seeded(&DEFAULT_PARAMETERS, 12);
    let id = DEFAULT_PARAMETERS.id();
    let sealed = Zeroizing::new(envelope::seal(Kind::ClientKey, id, &client).unwrap());
    // The GLWE key is the payload's last field: its last WINDOW bytes are 128 key bits.
    // SAFETY: not armed yet, no other thread touches PATTERN.
    unsafe {
        (*std::ptr::addr_of_mut!(PATTERN)).copy_from_slice(&sealed[sealed.len() - WINDOW..]);
    }
    assert!(sealed[sealed.len() - WINDOW..].iter().any(|&b| b != 0));
    ARMED.store(true, Ordering::SeqCst);
    for _ in 0..3 {
        let again = Zeroizing::new(envelope::seal(Kind::ClientKey, id, &client).unwrap());
        let back: ClientKey = envelope::open(&again, Kind::ClientKey, id).unwrap();
        drop(back);
        drop(again);
    }
    ARMED.store(false, Ordering::SeqCst);
    assert_eq!(
        HITS.load(Ordering::SeqCst),
        0,
        "freed blocks held client-key bytes"
    );
    // The scanner does find a block freed without zeroizing (the check can fail).
    ARMED.store(true, Ordering::SeqCst);
    let leaked = envelope::seal(Kind::ClientKey, id, &client).unwrap();
    drop(leaked);
    ARMED.store(false, Ordering::SeqCst);
    assert!(HITS.load(Ordering::SeqCst) >= 1);
}

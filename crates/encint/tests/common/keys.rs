//! One key pair per test binary, the server set on the calling test's thread.

use std::sync::{Arc, OnceLock};

use encint::{set_server, ClientKey, Server, DEFAULT_PARAMETERS};

/// The client key (generated once), with its server set on this test's thread.
pub fn client() -> &'static ClientKey {
    static KEYS: OnceLock<(ClientKey, Arc<Server>)> = OnceLock::new();
    let (client, server) = KEYS.get_or_init(|| {
        let (client, key) = ClientKey::generate(&DEFAULT_PARAMETERS);
        (client, Arc::new(Server::new(key)))
    });
    set_server(server.clone());
    client
}

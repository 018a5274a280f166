//! Servers and helpers the test modules share.

#![allow(dead_code)] // Each module uses its own part.

pub(crate) mod chat_server;
pub(crate) mod gbnf;
#[cfg(unix)]
pub(crate) mod hang;
pub(crate) mod json_schema;

//! Servers and helpers the test modules share.

#![allow(dead_code)] // Each module uses its own part.

pub mod chat_server;
pub mod gbnf;
#[cfg(unix)]
pub mod hang;

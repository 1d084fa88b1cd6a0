//! touchmove: a tournament chess table daemon.
//!
//! Serial lines from a reed-switch board (TMB1) and a chess clock (TMC1)
//! come in at the edges ([`wire`], [`link`]); the pure [`table`] state
//! machine turns them into moves, alerts and a game score; [`replay`] drives
//! it from TMREC recordings, and [`sim`] plays games as people move pieces,
//! for the demo and for tests.

pub mod cli;
pub mod config;
pub mod daemon;
pub mod demo;
pub mod export;
pub mod laws;
pub mod link;
pub mod pgn;
pub mod record;
pub mod replay;
pub mod sim;
pub mod store;
pub mod table;
pub mod verdict;
pub mod wire;

//! The owned peer: a protection domain shared by everything made on it.

use std::net::IpAddr;
use std::ops::Deref;
use std::sync::Arc;

use crate::error::Result;
use crate::peer::{self, Device};

/// A protection domain on an RDMA device, shared by reference counting:
/// cloning is cheap, and the domain is released when the last clone and
/// the last region, request or connection made on it are gone. It derefs
/// to [`peer::Peer`] for the device's capabilities.
#[derive(Debug, Clone)]
pub struct Peer(Arc<peer::Peer>);

impl Peer {
    /// A peer on the device that owns the local address `ip` (the side
    /// that listens there).
    ///
    /// # Errors
    /// `Error::Inval` for the wildcard address (`0.0.0.0` or `::`), which
    /// names no device; `Error::Provider` for an address that is not this
    /// host's (`rdma_bind_addr` fails with `EADDRNOTAVAIL`); as
    /// [`Peer::on`] when the device cannot be queried or refuses a
    /// protection domain.
    pub fn local(ip: IpAddr) -> Result<Peer> {
        Peer::on(&Device::local(&ip.to_string())?)
    }

    /// A peer on the device through which `ip`, a remote address, is
    /// reached (the side that connects to it).
    ///
    /// # Errors
    /// `Error::Provider` for an address with no route
    /// (`rdma_resolve_addr`: `ETIMEDOUT` when nothing answers for it on
    /// the link); `Error::Inval` should rdma_cm resolve the address to no
    /// device (it binds even the wildcard and the loopback address to
    /// one); as [`Peer::on`] when the device cannot be queried or refuses
    /// a protection domain.
    pub fn remote(ip: IpAddr) -> Result<Peer> {
        Peer::on(&Device::remote(&ip.to_string())?)
    }

    /// A peer on `device`.
    ///
    /// # Errors
    /// `Error::Provider` when the device cannot be queried or refuses a
    /// protection domain; `Error::NoMem` when it refuses for want of
    /// memory (`ENOMEM`); `Error::Unknown` when it refuses without an
    /// errno.
    pub fn on(device: &Device) -> Result<Peer> {
        Ok(Peer(Arc::new(peer::Peer::new(device)?)))
    }

    /// The shared peer, for the C library's objects the handles wrap: its
    /// address stays the same as long as any clone of `self` lives.
    pub(crate) fn shared(&self) -> &peer::Peer {
        &self.0
    }
}

impl Deref for Peer {
    type Target = peer::Peer;
    fn deref(&self) -> &peer::Peer {
        &self.0
    }
}

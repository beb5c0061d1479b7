//! A server lends 4 KiB of its memory; a client writes a `Vec<u8>` into it
//! and flushes the write, so that it is visible at the server. Run
//! `quick_start server ADDR PORT` there, `quick_start client ADDR PORT` here.
use rpma::{ConnEvent, ConnReq, Ep, FlushType, MrRemote, Opts, Peer, Region, Usage};
use std::error::Error;
use std::net::SocketAddr;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, side, ip, port] = &args[..] else {
        return Err("usage: quick_start server|client <addr> <port>".into());
    };
    let addr = SocketAddr::new(ip.parse()?, port.parse()?);
    match side.as_str() {
        "server" => server(addr)?,
        "client" => client(addr)?,
        _ => return Err(format!("{side}: neither server nor client").into()),
    }
    println!("{side}: done");
    Ok(())
}

fn server(addr: SocketAddr) -> Result<(), Box<dyn Error>> {
    let peer = Peer::local(addr.ip())?;
    let usage = Usage::WRITE_DST | Usage::FLUSH_TYPE_VISIBILITY;
    let region = Region::reg(&peer, vec![0u8; 4096], usage)?;
    let ep = Ep::listen(&peer, addr)?;
    println!("server: listening on {addr}");
    // the region's descriptor goes to the client in the private data
    let conn = ep.next_request(None)?.connect(&region.descriptor())?;
    assert_eq!(conn.next_event()?, ConnEvent::Established);
    // the client hangs up once its write is flushed
    assert_eq!(conn.next_event()?, ConnEvent::Closed);
    conn.delete()?;
    let memory = region.dereg()?;
    let text = memory.split(|&b| b == 0).next().unwrap_or_default();
    println!("server: got {:?}", String::from_utf8_lossy(text));
    Ok(())
}

fn client(addr: SocketAddr) -> Result<(), Box<dyn Error>> {
    let peer = Peer::remote(addr.ip())?;
    let src = Region::reg(&peer, b"Hello, RDMA!".to_vec(), Usage::WRITE_SRC)?;
    let conn = ConnReq::new(&peer, addr, None)?.connect(&[])?;
    assert_eq!(conn.next_event()?, ConnEvent::Established);
    let dst = MrRemote::from_descriptor(conn.private_data().unwrap_or_default())?;
    let dst = dst.slice(..src.size())?;
    // no completion for the write; the flush's says both are done
    conn.write(src.slice(..)?, dst, Opts::unsignaled())?;
    conn.flush(dst, FlushType::Visibility, Opts::signaled())?;
    let wc = conn.cq().next_wc()?;
    assert!(wc.status().is_success(), "the flush failed: {wc:?}");
    conn.disconnect()?;
    assert_eq!(conn.next_event()?, ConnEvent::Closed);
    conn.delete()?;
    Ok(())
}

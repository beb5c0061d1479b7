//! The data-path inline verbs of `<infiniband/verbs.h>` (and the CQ arming
//! of `rpma_cq_wait`/`rpma_conn_req_new`), written out in Rust so the
//! library calls the provider's op directly, as a C caller of the inline
//! functions does. Reaching them through bindgen's generated C wrappers
//! (`*__extern`) costs a call and a jump per operation, which was most of
//! what separated our instructions per operation from the C library's. The
//! fault-injection build keeps the wrappers: its own definitions of these
//! names (in `inject`) shadow these.
//!
//! Each op pointer is read from the object's context as verbs.h does.
//! libibverbs never leaves one NULL: it fills the context's ops with its
//! own EOPNOTSUPP dummies before the provider's (`verbs_set_ops`), and the
//! C inline functions call the pointer unchecked on that ground too.

use std::ffi::c_int;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::raw::{ibv_cq, ibv_qp, ibv_qp_ex, ibv_recv_wr, ibv_send_wr, ibv_srq, ibv_wc};

/// # Safety
/// `qp` is a live QP of an initialized context; the lists are as for the
/// provider's `post_send`.
#[inline(always)]
pub unsafe fn ibv_post_send(
    qp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    // SAFETY: caller contract; the op is never NULL (see the module doc).
    unsafe { ((*(*qp).context).ops.post_send.unwrap_unchecked())(qp, wr, bad_wr) }
}

/// # Safety
/// `qp` is a live QP of an initialized context; the lists are as for the
/// provider's `post_recv`.
#[inline(always)]
pub unsafe fn ibv_post_recv(
    qp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: caller contract; the op is never NULL (see the module doc).
    unsafe { ((*(*qp).context).ops.post_recv.unwrap_unchecked())(qp, wr, bad_wr) }
}

/// # Safety
/// `srq` is a live SRQ of an initialized context; the lists are as for the
/// provider's `post_srq_recv`.
#[inline(always)]
pub unsafe fn ibv_post_srq_recv(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: caller contract; the op is never NULL (see the module doc).
    unsafe { ((*(*srq).context).ops.post_srq_recv.unwrap_unchecked())(srq, wr, bad_wr) }
}

/// # Safety
/// `cq` is a live CQ of an initialized context and `wc` has room for
/// `num_entries` completions.
#[inline(always)]
pub unsafe fn ibv_poll_cq(cq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    // SAFETY: caller contract; the op is never NULL (see the module doc).
    unsafe { ((*(*cq).context).ops.poll_cq.unwrap_unchecked())(cq, num_entries, wc) }
}

/// # Safety
/// `cq` is a live CQ of an initialized context.
#[inline(always)]
pub unsafe fn ibv_req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    // SAFETY: caller contract; the op is never NULL (see the module doc).
    unsafe {
        let ctx = (*cq).context;
        let op = (*ctx).ops.req_notify_cq.unwrap_unchecked();
        if op as usize == KERNEL_ARM.load(Ordering::Relaxed) {
            let ret = kernel_arm((*ctx).cmd_fd, (*cq).handle, solicited_only);
            if ret == 0 {
                return 0;
            }
            kernel_arm_refused(ret);
        }
        op(cq, solicited_only)
    }
}

/// The address of libibverbs' `ibv_cmd_req_notify_cq`, once
/// [`prepare_req_notify_cq`] has looked it up; 0 before, or if it is not
/// there. A provider whose CQs the kernel arms (rxe, siw and others with no
/// arming of their own in user space) installs that function as its
/// `req_notify_cq`. In rdma-core 44 and 56 (Debian 12 and 13) it sends the
/// kernel's REQ_NOTIFY_CQ command through libibverbs' general command
/// machinery (an ioctl that carries a write command), about 240
/// instructions in user space: the larger part of a wait. `kernel_arm`
/// sends the same command, as the kernel's stable uverbs write interface
/// defines it, in one write(2). The comparison is made on every call, so a
/// context whose op was replaced (as the tests' mocks do) keeps its own.
static KERNEL_ARM: AtomicUsize = AtomicUsize::new(0);

/// Looks up `ibv_cmd_req_notify_cq` for [`ibv_req_notify_cq`]; cheap after
/// the first call. Called where CQs are made, off the data path.
pub fn prepare_req_notify_cq() {
    if KERNEL_ARM.load(Ordering::Relaxed) != 0 {
        return;
    }
    // SAFETY: the name is NUL-terminated; RTLD_DEFAULT searches the objects
    // already loaded, which include libibverbs (this library needs it).
    let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"ibv_cmd_req_notify_cq".as_ptr()) };
    // usize::MAX: looked up and absent, so no op pointer ever matches.
    let found = if f.is_null() { usize::MAX } else { f as usize };
    KERNEL_ARM.store(found, Ordering::Relaxed);
}

/// `struct ib_uverbs_cmd_hdr` followed by `struct ib_uverbs_req_notify_cq`
/// (`<rdma/ib_user_verbs.h>`): the whole of a REQ_NOTIFY_CQ write command.
#[repr(C)]
struct ReqNotifyCmd {
    command: u32,
    in_words: u16,
    out_words: u16,
    cq_handle: u32,
    solicited_only: u32,
}

/// `IB_USER_VERBS_CMD_REQ_NOTIFY_CQ` of `enum ib_uverbs_write_cmds`.
const CMD_REQ_NOTIFY_CQ: u32 = 23;

/// Arms the CQ with kernel handle `cq_handle` through the context's command
/// fd, as `ibv_cmd_req_notify_cq` does; 0 or an errno value, as it returns.
#[inline(always)]
fn kernel_arm(cmd_fd: c_int, cq_handle: u32, solicited_only: c_int) -> c_int {
    const LEN: usize = std::mem::size_of::<ReqNotifyCmd>();
    let cmd = ReqNotifyCmd {
        command: CMD_REQ_NOTIFY_CQ,
        // the command's length in 32-bit words, header included
        in_words: (LEN / 4) as u16,
        out_words: 0,
        cq_handle,
        solicited_only: (solicited_only != 0) as u32,
    };
    // SAFETY: cmd is LEN readable bytes; a bad fd is reported by errno.
    let n = unsafe { libc::write(cmd_fd, (&raw const cmd).cast(), LEN) };
    if n == LEN as isize {
        0
    } else {
        arm_failed(n)
    }
}

/// After a failed direct arm the op is called as well: libibverbs' answer is
/// the one reported. The kernel refuses write(2) commands (EACCES) from a
/// process whose credentials are not those that opened the device, which
/// is the case of a child forked after the device was opened; the ioctl
/// that libibverbs uses has no such check. Such a process stops trying.
#[cold]
fn kernel_arm_refused(errno: c_int) {
    if errno == libc::EACCES {
        KERNEL_ARM.store(usize::MAX, Ordering::Relaxed);
    }
}

#[cold]
fn arm_failed(n: isize) -> c_int {
    if n < 0 {
        std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    } else {
        libc::EIO
    }
}

/// # Safety
/// `qp` is the extended QP of a live QP created with `send_ops_flags`; the
/// provider always sets `wr_start` for such a QP.
#[inline(always)]
pub unsafe fn ibv_wr_start(qp: *mut ibv_qp_ex) {
    // SAFETY: caller contract.
    unsafe { ((*qp).wr_start.unwrap_unchecked())(qp) }
}

/// # Safety
/// As for [`ibv_wr_start`], after it.
#[inline(always)]
pub unsafe fn ibv_wr_complete(qp: *mut ibv_qp_ex) -> c_int {
    // SAFETY: caller contract; set together with wr_start.
    unsafe { ((*qp).wr_complete.unwrap_unchecked())(qp) }
}

//! Raw bindings to the libibverbs and librdmacm items the library uses,
//! generated at build time by bindgen from the installed rdma-core headers.
//! Inline verbs are reached through the generated `*__extern` C wrappers.
#![allow(
    non_upper_case_globals,
    non_camel_case_types,
    non_snake_case,
    dead_code,
    unused_imports,
    clippy::all,
    rustdoc::all
)]

include!(concat!(env!("OUT_DIR"), "/bindings.rs"));

#[cfg(test)]
mod tests {
    //! The inline verbs reach the provider through the C wrappers that
    //! bindgen generated: a mock provider op sees exactly what was passed.
    use super::*;
    use std::ptr;

    unsafe extern "C" fn mock_poll(cq: *mut ibv_cq, n: i32, wc: *mut ibv_wc) -> i32 {
        // SAFETY: the test passes a valid CQ and an array of n entries.
        unsafe {
            assert_eq!((*cq).cqe, 7);
            (*wc).wr_id = 0xfeed;
        }
        n - 1
    }

    unsafe extern "C" fn mock_post_send(
        qp: *mut ibv_qp,
        wr: *mut ibv_send_wr,
        bad: *mut *mut ibv_send_wr,
    ) -> i32 {
        // SAFETY: the test passes valid pointers.
        unsafe {
            assert_eq!((*qp).qp_num, 42);
            assert_eq!((*wr).wr_id, 9);
            assert!(bad.is_null() || (*bad).is_null());
        }
        -5
    }

    #[test]
    fn inline_verbs_dispatch_through_the_wrappers() {
        let mut ctx = ibv_context::default();
        ctx.ops.poll_cq = Some(mock_poll);
        ctx.ops.post_send = Some(mock_post_send);
        let mut cq = ibv_cq {
            context: &mut ctx,
            cqe: 7,
            ..Default::default()
        };
        let mut wc = [ibv_wc::default(); 3];
        // SAFETY: cq and wc are live for the call; the mock only touches them.
        let got = unsafe { ibv_poll_cq(&mut cq, 3, wc.as_mut_ptr()) };
        assert_eq!((got, wc[0].wr_id), (2, 0xfeed));

        let mut qp = ibv_qp {
            context: &mut ctx,
            qp_num: 42,
            ..Default::default()
        };
        let mut wr = ibv_send_wr {
            wr_id: 9,
            ..Default::default()
        };
        let mut bad = ptr::null_mut();
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_post_send(&mut qp, &mut wr, &mut bad) }, -5);
    }
}

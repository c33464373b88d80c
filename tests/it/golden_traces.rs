//! Golden step tables of the broker side around leader moves: every replica's LEO/HW,
//! fetchers and the leader's records, step by step, for a few short histories under the
//! rule sets that treat leader moves differently. They pin what the invariants cannot see
//! on their own (which state a new leader starts from, when a follower catches up or is
//! diverted), so a change to `make_leader` or `follower_delta` shows up here as a diff to
//! review (`UPDATE_EXPECT=1 cargo test --test it golden_traces::` accepts it).

use crate::common;

use expect_test::{expect, Expect};
use isrfuzz::check::oracle;
use isrfuzz::findings::report::step_table;
use isrfuzz::rules::RuleSet;

fn check(history: &str, rules: &[&str], expect: Expect) {
    let h = common::parse(history);
    let mut out = String::new();
    for r in rules {
        let v = oracle::run(&h, &[RuleSet::parse(r).unwrap()], true);
        out += &step_table(&h, &v.sides[0]);
    }
    expect.assert_eq(&out);
}

#[test]
fn classic_leader_fenced_and_elected_back() {
    check(
        "brokers 1,2,3; create 1,2,3; produce 10; time 15000; fence 1; produce 4; \
         time 15000; unfence 1; time 15000; elect preferred; produce 2; time 15000",
        &["complete"],
        expect![[r#"
            rules: complete
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
               1  produce p0 +10                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              classic seal=-1 t=0ms | 1*: 10/0 | 2: 0/0 c rec -1@0 | 3: 0/0 c rec -1@0
               2  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 3 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               3  fence 1                            ok                       p0 [1,2,3]       [2,3]       []        []          2   1   1  
                                                                              classic seal=-1 t=15000ms | 1*: 10/10 rec -1@0 | 2*: 10/10 | 3: 10/10 c rec -1@15000
               4  produce p0 +4                      ok                       p0 [1,2,3]       [2,3]       []        []          2   1   1  
                                                                              classic seal=-1 t=15000ms | 1*: 10/10 rec -1@0 | 2*: 14/10 | 3: 10/10 c rec -1@15000
               5  time +15000ms                      ok                       
                                                       fetch p0 by 3 at 10: 4 records, HW 10 (local log)
                                                       fetch p0 by 3 at 14: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 14: 0 records, HW 14 (local log)
                                                       fetch p0 by 3 at 14: 0 records, HW 14 (local log)
               6  unfence 1                          ok                       
               7  time +15000ms                      ok                       p0 [1,2,3]       [2,3,1]     []        []          2   1   2  
                                                                              classic seal=-1 t=45000ms | 1: 14/14 c rec 14@45000 | 2*: 14/14 | 3: 14/14 c rec 14@45000
                                                       fetch p0 by 1 at 10: 4 records, HW 14 (local log)
                                                       fetch p0 by 3 at 14: 0 records, HW 14 (local log)
                                                       fetch p0 by 1 at 14: 0 records, HW 14 (local log)
                                                       p0 admits 1 to the isr
                                                       fetch p0 by 3 at 14: 0 records, HW 14 (local log)
                                                       fetch p0 by 1 at 14: 0 records, HW 14 (local log)
                                                       fetch p0 by 3 at 14: 0 records, HW 14 (local log)
                                                       fetch p0 by 1 at 14: 0 records, HW 14 (local log)
                                                       fetch p0 by 3 at 14: 0 records, HW 14 (local log)
               8  elect p0 preferred                 ok                       p0 [1,2,3]       [2,3,1]     []        []          1   2   3  
                                                                              classic seal=-1 t=45000ms | 1*: 14/14 | 2: 14/14 c rec -1@45000 | 3: 14/14 c rec -1@45000
               9  produce p0 +2                      ok                       p0 [1,2,3]       [2,3,1]     []        []          1   2   3  
                                                                              classic seal=-1 t=45000ms | 1*: 16/14 | 2: 14/14 c rec -1@45000 | 3: 14/14 c rec -1@45000
              10  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 14: 2 records, HW 14 (local log)
                                                       fetch p0 by 3 at 14: 2 records, HW 14 (local log)
                                                       fetch p0 by 2 at 16: 0 records, HW 14 (local log)
                                                       fetch p0 by 3 at 16: 0 records, HW 14 (local log)
                                                       fetch p0 by 2 at 16: 0 records, HW 16 (local log)
                                                       fetch p0 by 3 at 16: 0 records, HW 16 (local log)
                                                       fetch p0 by 2 at 16: 0 records, HW 16 (local log)
                                                       fetch p0 by 3 at 16: 0 records, HW 16 (local log)
        "#]],
    );
}

#[test]
fn switched_leader_moves_under_each_leader_change_rule() {
    check(
        "brokers 1,2,3; create 1,2,3; produce 10; time 15000; switch consolidating; \
         time 15000; seal; produce 5; time 15000; fence 1; time 15000; unfence 1; \
         time 15000; elect preferred; time 30000",
        &["pr756-commit1", "pr756", "complete"],
        expect![[r#"
            rules: trunk+pr756-commit1
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
               1  produce p0 +10                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              classic seal=-1 t=0ms | 1*: 10/0 | 2: 0/0 c rec -1@0 | 3: 0/0 c rec -1@0
               2  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 3 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               3  switch p0 consolidating            ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   1  
                                                                              consolidating seal=-2 t=15000ms | 1*: 10/10 | 2: 10/10 c rec 10@15000 | 3: 10/10 c rec 10@15000
               4  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               5  seal_commit p0                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   2  
                                                                              consolidating seal=10 t=30000ms | 1*: 10/10 C | 2: 10/10 c rec 10@30000 | 3: 10/10 c rec 10@30000
               6  produce p0 +5                      ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   2  
                                                                              consolidating seal=10 t=30000ms | 1*: 10/10 C | 2: 10/10 c rec 10@30000 | 3: 10/10 c rec 10@30000
               7  time +15000ms                      ok                       !! INV-6
                                                       fetch p0 by 2 at 10: 5 records, HW 15 (local log)
                                                       fetch p0 by 3 at 10: 5 records, HW 15 (local log)
               8  fence 1                            ok                       p0 [1,2,3]       [2,3]       []        []          2   2   3  
                                                                              consolidating seal=10 t=45000ms | 1*: 15/15 C rec -1@0 | 2*: 15/15 C | 3: 15/15 C rec -1@45000
               9  time +15000ms                      ok                       
              10  unfence 1                          ok                       
              11  time +15000ms                      ok                       
              12  elect p0 preferred                 PREFERRED_LEADER_NOT_AVAILABLE p0 [1,2,3]       [2,3]       []        []          2   2   3  
                                                                              consolidating seal=10 t=75000ms | 1: 15/15 C rec -1@0 | 2*: 15/15 C | 3: 15/15 C rec -1@45000
              13  time +30000ms                      ok                       p0 [1,2,3]       [2]         []        []          2   2   4  !! INV-4
                                                                              consolidating seal=10 t=105000ms | 1: 15/15 C rec -1@0 | 2*: 15/15 C | 3: 15/15 C rec -1@45000
                                                       isr-expiration on 2: p0 shrinks 3 (rec -1)
              INV-6 step 7: p0: fetch by 2 at 10 ≥ seal 10 got 5 records, HW 15
              INV-4 step 13: p0: shrank healthy follower 3 (LEO 15 ≥ seal 10, recorded -1)
              E2 at quiescence: p0: 1 holds the prefix (LEO 15 ≥ seal 10) but stays out of isr [2]
            rules: trunk+pr756
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
               1  produce p0 +10                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              classic seal=-1 t=0ms | 1*: 10/0 | 2: 0/0 c rec -1@0 | 3: 0/0 c rec -1@0
               2  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 3 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               3  switch p0 consolidating            ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   1  
                                                                              consolidating seal=-2 t=15000ms | 1*: 10/10 | 2: 10/10 c rec 10@15000 | 3: 10/10 c rec 10@15000
               4  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               5  seal_commit p0                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   2  
                                                                              consolidating seal=10 t=30000ms | 1*: 10/10 C | 2: 10/10 c rec 10@30000 | 3: 10/10 c rec 10@30000
               6  produce p0 +5                      ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   2  
                                                                              consolidating seal=10 t=30000ms | 1*: 10/10 C | 2: 10/10 c rec 10@30000 | 3: 10/10 c rec 10@30000
               7  time +15000ms                      ok                       !! INV-6
                                                       fetch p0 by 2 at 10: 5 records, HW 15 (local log)
                                                       fetch p0 by 3 at 10: 5 records, HW 15 (local log)
               8  fence 1                            ok                       p0 [1,2,3]       [2,3]       []        []          2   2   3  
                                                                              consolidating seal=10 t=45000ms | 1*: 15/15 C rec -1@0 | 2*: 15/15 C | 3: 15/15 c rec -1@45000
               9  time +15000ms                      ok                       
                                                       fetch p0 by 3 at 15: 0 records, HW 10 (at-seal)
              10  unfence 1                          ok                       
              11  time +15000ms                      ok                       
                                                       fetch p0 by 1 at 15: 0 records, HW 10 (at-seal)
              12  elect p0 preferred                 PREFERRED_LEADER_NOT_AVAILABLE p0 [1,2,3]       [2,3]       []        []          2   2   3  
                                                                              consolidating seal=10 t=75000ms | 1: 15/15 C rec 10@0 | 2*: 15/15 C | 3: 15/15 C rec 10@45000
              13  time +30000ms                      ok                       
              INV-6 step 7: p0: fetch by 2 at 10 ≥ seal 10 got 5 records, HW 15
              E2 at quiescence: p0: 1 holds the prefix (LEO 15 ≥ seal 10) but stays out of isr [2,3]
            rules: complete
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
               1  produce p0 +10                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              classic seal=-1 t=0ms | 1*: 10/0 | 2: 0/0 c rec -1@0 | 3: 0/0 c rec -1@0
               2  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 3 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               3  switch p0 consolidating            ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   1  
                                                                              consolidating seal=-2 t=15000ms | 1*: 10/10 | 2: 10/10 c rec 10@15000 | 3: 10/10 c rec 10@15000
               4  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               5  seal_commit p0                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   2  
                                                                              consolidating seal=10 t=30000ms | 1*: 10/10 C | 2: 10/10 c rec 10@30000 | 3: 10/10 c rec 10@30000
               6  produce p0 +5                      ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   2  
                                                                              consolidating seal=10 t=30000ms | 1*: 10/10 C | 2: 10/10 c rec 10@30000 | 3: 10/10 c rec 10@30000
               7  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (at-seal)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (at-seal)
               8  fence 1                            ok                       p0 [1,2,3]       [2,3]       []        []          2   2   3  
                                                                              consolidating seal=10 t=45000ms | 1*: 15/15 C rec -1@0 | 2*: 15/15 C | 3: 15/15 c rec -1@45000
               9  time +15000ms                      ok                       
                                                       fetch p0 by 3 at 15: 0 records, HW 10 (at-seal)
              10  unfence 1                          ok                       
              11  time +15000ms                      ok                       p0 [1,2,3]       [2,3,1]     []        []          2   2   4  
                                                                              consolidating seal=10 t=75000ms | 1: 15/15 C rec 10@0 | 2*: 15/15 C | 3: 15/15 C rec 10@45000
                                                       fetch p0 by 1 at 15: 0 records, HW 10 (at-seal)
                                                       p0 admits 1 to the isr
                                                       fetch p0 by 1 at 15: 0 records, HW 10 (at-seal)
              12  elect p0 preferred                 ok                       p0 [1,2,3]       [2,3,1]     []        []          1   3   5  
                                                                              consolidating seal=10 t=75000ms | 1*: 15/15 C | 2: 15/15 c rec -1@75000 | 3: 15/15 c rec -1@75000
              13  time +30000ms                      ok                       
                                                       fetch p0 by 3 at 15: 0 records, HW 10 (at-seal)
                                                       fetch p0 by 2 at 15: 0 records, HW 10 (at-seal)
        "#]],
    );
}

#[test]
fn switched_non_consolidating_leader_restarts() {
    check(
        "brokers 1,2,3; create 1,2,3; produce 10; time 15000; switch; time 15000; seal; \
         restart 1; time 15000; produce 3; time 30000",
        &["inkless-main", "complete"],
        expect![[r#"
            rules: trunk+inkless-main
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
               1  produce p0 +10                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              classic seal=-1 t=0ms | 1*: 10/0 | 2: 0/0 c rec -1@0 | 3: 0/0 c rec -1@0
               2  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 3 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               3  switch p0                          ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   1  
                                                                              diskless seal=-2 t=15000ms | 1*: 10/10 | 2: 10/10 c rec 10@15000 | 3: 10/10 c rec 10@15000
               4  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               5  seal_commit p0                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   2  
                                                                              diskless seal=10 t=30000ms | 1*: 10/10 | 2: 10/10 c rec 10@30000 | 3: 10/10 c rec 10@30000
               6  restart 1                          ok                       p0 [1,2,3]       [2,3]       []        []          2   2   3  
                                                                              diskless seal=10 t=30000ms | 1: 10/10 c rec -1@0 | 2*: 10/10 | 3: 10/10 c rec -1@30000
               7  time +15000ms                      ok                       p0 [1,2,3]       [2,3,1]     []        []          2   2   4  
                                                                              diskless seal=10 t=45000ms | 1: 10/10 rec 10@30000 | 2*: 10/10 | 3: 10/10 rec -1@30000
                                                       fetch p0 by 1 at 10: 0 records, HW 10 (at-seal)
                                                       p0 admits 1 to the isr
                                                       fetch p0 by 1 at 10: 0 records, HW 10 (at-seal)
               8  produce p0 +3                      ok                       p0 [1,2,3]       [2,3,1]     []        []          2   2   4  
                                                                              diskless seal=10 t=45000ms | 1: 10/10 rec 10@30000 | 2*: 10/10 | 3: 10/10 rec -1@30000
               9  time +30000ms                      ok                       
            rules: complete
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
               1  produce p0 +10                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              classic seal=-1 t=0ms | 1*: 10/0 | 2: 0/0 c rec -1@0 | 3: 0/0 c rec -1@0
               2  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 3 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               3  switch p0                          ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   1  
                                                                              diskless seal=-2 t=15000ms | 1*: 10/10 | 2: 10/10 c rec 10@15000 | 3: 10/10 c rec 10@15000
               4  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               5  seal_commit p0                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   2  
                                                                              diskless seal=10 t=30000ms | 1*: 10/10 | 2: 10/10 c rec 10@30000 | 3: 10/10 c rec 10@30000
               6  restart 1                          ok                       p0 [1,2,3]       [2,3]       []        []          2   2   3  
                                                                              diskless seal=10 t=30000ms | 1: 10/10 c rec -1@0 | 2*: 10/10 | 3: 10/10 c rec -1@30000
               7  time +15000ms                      ok                       p0 [1,2,3]       [2,3,1]     []        []          2   2   4  
                                                                              diskless seal=10 t=45000ms | 1: 10/10 rec 10@30000 | 2*: 10/10 | 3: 10/10 rec 10@30000
                                                       fetch p0 by 1 at 10: 0 records, HW 10 (at-seal)
                                                       p0 admits 1 to the isr
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (at-seal)
                                                       fetch p0 by 1 at 10: 0 records, HW 10 (at-seal)
               8  produce p0 +3                      ok                       p0 [1,2,3]       [2,3,1]     []        []          2   2   4  
                                                                              diskless seal=10 t=45000ms | 1: 10/10 rec 10@30000 | 2*: 10/10 | 3: 10/10 rec 10@30000
               9  time +30000ms                      ok                       
        "#]],
    );
}

#[test]
fn controlled_shutdown_of_a_follower_then_of_the_leader() {
    check(
        "brokers 1,2,3; create 1,2,3; produce 10; time 15000; shutdown 2; produce 3; \
         time 15000; shutdown 1; time 15000; produce 1; time 15000",
        &["complete"],
        expect![[r#"
            rules: complete
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
               1  produce p0 +10                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              classic seal=-1 t=0ms | 1*: 10/0 | 2: 0/0 c rec -1@0 | 3: 0/0 c rec -1@0
               2  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 3 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               3  shutdown 2                         ok                       p0 [1,2,3]       [1,3]       []        []          1   0   1  
                                                                              classic seal=-1 t=15000ms | 1*: 10/10 | 2: 10/10 rec 10@15000 | 3: 10/10 c rec 10@15000
               4  produce p0 +3                      ok                       p0 [1,2,3]       [1,3]       []        []          1   0   1  
                                                                              classic seal=-1 t=15000ms | 1*: 13/10 | 2: 10/10 rec 10@15000 | 3: 10/10 c rec 10@15000
               5  time +15000ms                      ok                       
                                                       fetch p0 by 3 at 10: 3 records, HW 10 (local log)
                                                       fetch p0 by 3 at 13: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 13: 0 records, HW 13 (local log)
                                                       fetch p0 by 3 at 13: 0 records, HW 13 (local log)
               6  shutdown 1                         ok                       p0 [1,2,3]       [3]         []        []          3   1   2  
                                                                              classic seal=-1 t=30000ms | 1: 13/13 rec -1@0 | 2: 10/10 rec -1@0 | 3*: 13/13
               7  time +15000ms                      ok                       
               8  produce p0 +1                      ok                       p0 [1,2,3]       [3]         []        []          3   1   2  
                                                                              classic seal=-1 t=45000ms | 1: 13/13 rec -1@0 | 2: 10/10 rec -1@0 | 3*: 14/14
               9  time +15000ms                      ok                       
        "#]],
    );
}

/// A born-diskless partition on remote storage (seal -1): the leader and its followers
/// consolidate from the start, and a new leader restarts its own consolidation. The
/// followers the leader moves divert to the classic fetcher and stay there: finding F4.
#[test]
fn born_diskless_consolidating_leader_moves() {
    check(
        "brokers 1,2,3; create 1,2,3 remote; produce 5; fence 1; time 1000; unfence 1; \
         elect preferred",
        &["complete"],
        expect![[r#"
            rules: complete
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3] diskless remote     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              consolidating seal=-1 t=0ms | 1*: 0/0 C | 2: 0/0 C rec -1@0 | 3: 0/0 C rec -1@0
               1  produce p0 +5                      ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              consolidating seal=-1 t=0ms | 1*: 0/0 C | 2: 0/0 C rec -1@0 | 3: 0/0 C rec -1@0
               2  fence 1                            ok                       p0 [1,2,3]       [2,3]       []        []          2   1   1  
                                                                              consolidating seal=-1 t=0ms | 1*: 0/0 C rec -1@0 | 2*: 0/0 C | 3: 0/0 c rec -1@0
               3  time +1000ms                       ok                       
               4  unfence 1                          ok                       p0 [1,2,3]       [2,3,1]     []        []          2   1   2  
                                                                              consolidating seal=-1 t=1000ms | 1: 0/0 c rec -1@0 | 2*: 5/5 C | 3: 0/0 c rec -1@0
               5  elect p0 preferred                 ok                       p0 [1,2,3]       [2,3,1]     []        []          1   2   3  
                                                                              consolidating seal=-1 t=1000ms | 1*: 0/0 C | 2: 5/5 c rec -1@1000 | 3: 0/0 c rec -1@1000
              INV-9 at quiescence: p0 (seal -1): follower 2 fetchers Fetchers { classic: true, consolidation: false }
        "#]],
    );
}

/// The sole ISR member leads and shuts down: the partition goes leaderless with the ISR
/// kept, and the shutting-down broker stops fetching rather than following nobody. On a
/// consolidating partition it also stops consolidating, which under rules that do not
/// divert (trunk) only that controlled-shutdown reset does.
#[test]
fn controlled_shutdown_of_the_last_isr_member() {
    check(
        "brokers 1,2,3; create 1,2,3; produce 5; time 1000; fence 2; fence 3; shutdown 1; \
         time 1000",
        &["complete"],
        expect![[r#"
            rules: complete
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
               1  produce p0 +5                      ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              classic seal=-1 t=0ms | 1*: 5/0 | 2: 0/0 c rec -1@0 | 3: 0/0 c rec -1@0
               2  time +1000ms                       ok                       
                                                       fetch p0 by 2 at 0: 5 records, HW 0 (local log)
                                                       fetch p0 by 3 at 0: 5 records, HW 0 (local log)
                                                       fetch p0 by 2 at 5: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 5: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 5: 0 records, HW 5 (local log)
                                                       fetch p0 by 3 at 5: 0 records, HW 5 (local log)
                                                       fetch p0 by 2 at 5: 0 records, HW 5 (local log)
                                                       fetch p0 by 3 at 5: 0 records, HW 5 (local log)
               3  fence 2                            ok                       p0 [1,2,3]       [1,3]       []        []          1   0   1  
                                                                              classic seal=-1 t=1000ms | 1*: 5/5 | 2: 5/5 c rec 5@1000 | 3: 5/5 c rec 5@1000
               4  fence 3                            ok                       p0 [1,2,3]       [1]         []        []          1   0   2  
                                                                              classic seal=-1 t=1000ms | 1*: 5/5 | 2: 5/5 c rec 5@1000 | 3: 5/5 c rec 5@1000
               5  shutdown 1                         ok                       p0 [1,2,3]       [1]         []        []         -1   1   3  
                                                                              classic seal=-1 t=1000ms | 1: 5/5 | 2: 5/5 c | 3: 5/5 c
               6  time +1000ms                       ok                       
        "#]],
    );
    check(
        "brokers 1,2,3; create 1,2,3 remote; produce 5; time 1000; fence 2; fence 3; \
         shutdown 1; time 1000",
        &["complete", "trunk"],
        expect![[r#"
            rules: complete
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3] diskless remote     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              consolidating seal=-1 t=0ms | 1*: 0/0 C | 2: 0/0 C rec -1@0 | 3: 0/0 C rec -1@0
               1  produce p0 +5                      ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              consolidating seal=-1 t=0ms | 1*: 0/0 C | 2: 0/0 C rec -1@0 | 3: 0/0 C rec -1@0
               2  time +1000ms                       ok                       
               3  fence 2                            ok                       p0 [1,2,3]       [1,3]       []        []          1   0   1  
                                                                              consolidating seal=-1 t=1000ms | 1*: 5/5 C | 2: 5/5 C rec -1@0 | 3: 5/5 C rec -1@0
               4  fence 3                            ok                       p0 [1,2,3]       [1]         []        []          1   0   2  
                                                                              consolidating seal=-1 t=1000ms | 1*: 5/5 C | 2: 5/5 C rec -1@0 | 3: 5/5 C rec -1@0
               5  shutdown 1                         ok                       p0 [1,2,3]       [1]         []        []         -1   1   3  
                                                                              consolidating seal=-1 t=1000ms | 1: 5/5 | 2: 5/5 C | 3: 5/5 C
               6  time +1000ms                       ok                       
            rules: trunk+inkless-main
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3] diskless remote     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              consolidating seal=-1 t=0ms | 1*: 0/0 C | 2: 0/0 C rec -1@0 | 3: 0/0 C rec -1@0
               1  produce p0 +5                      ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              consolidating seal=-1 t=0ms | 1*: 0/0 C | 2: 0/0 C rec -1@0 | 3: 0/0 C rec -1@0
               2  time +1000ms                       ok                       
               3  fence 2                            ok                       p0 [1,2,3]       [1,3]       []        []          1   0   1  
                                                                              consolidating seal=-1 t=1000ms | 1*: 5/5 C | 2: 5/5 C rec -1@0 | 3: 5/5 C rec -1@0
               4  fence 3                            ok                       p0 [1,2,3]       [1]         []        []          1   0   2  
                                                                              consolidating seal=-1 t=1000ms | 1*: 5/5 C | 2: 5/5 C rec -1@0 | 3: 5/5 C rec -1@0
               5  shutdown 1                         ok                       p0 [1,2,3]       [1]         []        []         -1   1   3  
                                                                              consolidating seal=-1 t=1000ms | 1: 5/5 | 2: 5/5 C | 3: 5/5 C
               6  time +1000ms                       ok                       
        "#]],
    );
}

/// Records produced just before the switch: while the seal is pending the followers still
/// fetch them classically and the leader's high watermark advances, so the seal can
/// commit at the log end (the HW = LEO gate).
#[test]
fn the_high_watermark_advances_while_the_seal_is_pending() {
    check(
        "brokers 1,2,3; create 1,2,3; produce 10; switch; time 15000; seal",
        &["complete"],
        expect![[r#"
            rules: complete
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
               1  produce p0 +10                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
                                                                              classic seal=-1 t=0ms | 1*: 10/0 | 2: 0/0 c rec -1@0 | 3: 0/0 c rec -1@0
               2  switch p0                          ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   1  
                                                                              diskless seal=-2 t=0ms | 1*: 10/0 | 2: 0/0 c rec -1@0 | 3: 0/0 c rec -1@0
               3  time +15000ms                      ok                       
                                                       fetch p0 by 2 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 3 at 0: 10 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 2 at 10: 0 records, HW 10 (local log)
                                                       fetch p0 by 3 at 10: 0 records, HW 10 (local log)
               4  seal_commit p0                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   2  
                                                                              diskless seal=10 t=15000ms | 1*: 10/10 | 2: 10/10 c rec 10@15000 | 3: 10/10 c rec 10@15000
        "#]],
    );
}

/// Broker 4 enters the ISR by an explicit AlterPartition, which says the leader saw it
/// caught up (recorded at offset 0, time 0), then stops fetching: the high watermark cannot
/// pass it (the answers say HW 0) until the ISR-expiration task removes it, once its last
/// catch-up is more than `replica.lag.time.max.ms` (30 s) old.
#[test]
fn an_isr_member_that_stops_fetching_holds_the_high_watermark() {
    check(
        "brokers 1,2,3,4; create 1,2,3; reassign 1,2,3,4; stall 4; isr 1,2,3,4; produce 5; \
         time 45000",
        &["complete"],
        expect![[r#"
            rules: complete
            step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
               1  reassign p0 [1,2,3,4]              ok                       p0 [1,2,3,4]     [1,2,3]     [4]       []          1   0   1  
               2  stall 4                            ok                       
               3  alter_partition p0 isr=[1,2,3,4]   ok, completed            p0 [1,2,3,4]     [1,2,3,4]   []        []          1   0   2  
               4  produce p0 +5                      ok                       p0 [1,2,3,4]     [1,2,3,4]   []        []          1   0   2  
                                                                              classic seal=-1 t=0ms | 1*: 5/0 | 2: 0/0 c rec -1@0 | 3: 0/0 c rec -1@0 | 4: 0/0 c stalled rec 0@0
               5  time +45000ms                      ok                       p0 [1,2,3,4]     [1,2,3]     []        []          1   0   3  
                                                                              classic seal=-1 t=45000ms | 1*: 5/5 | 2: 5/5 c rec 5@45000 | 3: 5/5 c rec 5@45000 | 4: 0/0 c stalled rec 0@0
                                                       fetch p0 by 2 at 0: 5 records, HW 0 (local log)
                                                       fetch p0 by 3 at 0: 5 records, HW 0 (local log)
                                                       fetch p0 by 2 at 5: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 5: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 5: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 5: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 5: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 5: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 5: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 5: 0 records, HW 0 (local log)
                                                       fetch p0 by 2 at 5: 0 records, HW 0 (local log)
                                                       fetch p0 by 3 at 5: 0 records, HW 0 (local log)
                                                       isr-expiration on 1: p0 shrinks 4 (rec 0)
                                                       fetch p0 by 2 at 5: 0 records, HW 5 (local log)
                                                       fetch p0 by 3 at 5: 0 records, HW 5 (local log)
                                                       fetch p0 by 2 at 5: 0 records, HW 5 (local log)
                                                       fetch p0 by 3 at 5: 0 records, HW 5 (local log)
        "#]],
    );
}

mod common;
use isrfuzz::oracle;
use isrfuzz::report::step_table;
use isrfuzz::rules::RuleSet;
fn show(history: &str, r: &str) {
    let h = common::parse(history);
    let v = oracle::run(&h, &[RuleSet::parse(r).unwrap()], true);
    println!("=== {history}\n{}", step_table(&h, &v.sides[0]));
}
#[test]
fn scratch() {
    show(
        "brokers 1,2,3; create 1,2,3 remote; produce 5; time 1000",
        "complete",
    );
    show(
        "brokers 1,2,3; create 1,2,3; fence 2; fence 3; shutdown 1; time 1000",
        "complete",
    );
    show(
        "brokers 1,2,3; create 1,2,3; switch; seal; reassign 1,2",
        "complete",
    );
    show("brokers 1,2,3; create 1,2,3; produce 10; stall 3; time 40000; switch; time 15000; seal; time 1", "complete");
}

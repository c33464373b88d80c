//! `isrfuzz rules` and `isrfuzz invariants`: what this build knows, with provenance.

use isrfuzz::check::invariants::INVARIANTS;
use isrfuzz::rules::{RuleSet, COMPLETE_INKLESS, COMPLETE_KRAFT, PRESETS, RULES};

pub fn print_rules() {
    for rule in RULES {
        println!("rule {} ({:?}): {}", rule.id, rule.family, rule.summary);
        for v in rule.variants {
            println!("  {:<26} {}", v.name, v.summary);
            println!("  {:<26} source: {}", "", v.provenance);
        }
        println!();
    }
    println!(
        "presets (a rule set is `item(+item)*`, an item a preset, `complete` or rule=variant;"
    );
    println!("a preset sets only its family's rules; a pair is `A:B`):");
    for p in PRESETS {
        let complete = if p.name == COMPLETE_KRAFT || p.name == COMPLETE_INKLESS {
            " [part of `complete`, the default right-hand side of hunt]"
        } else {
            ""
        };
        println!("  {:<26} {:?}: {}{complete}", p.name, p.family, p.summary);
    }
    println!("\ncomplete = {}", RuleSet::complete().describe());
}

pub fn print_invariants() {
    for inv in INVARIANTS {
        println!("{} [{}] {}", inv.id, inv.kind.name(), inv.statement);
        println!("   why: {}", inv.rationale);
        println!("   source: {}\n", inv.source);
    }
}

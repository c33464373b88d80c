//! A history judged as it is drawn: `hunt` hands the generator the oracle's lockstep run
//! as its guide ([`Feed`]), so each event is applied once per side, not once more for a
//! guide model of the generator's own. The generator never imports the judge: the judge
//! is fed through the generator's small interface, here.

use crate::check::history::History;
use crate::check::judge::Start;
use crate::check::lockstep::Lockstep;
use crate::check::oracle::Verdict;
use crate::model::{apply, BrokerConfig, BrokerId, Cluster, Event};
use crate::rules::RuleSet;
use crate::search::generate::{decode_read, Decode, ElrMode, Feed};

/// The lockstep run, read as the guide through side `side`'s state.
struct Judged {
    run: Lockstep,
    side: usize,
}

impl Feed for Judged {
    fn start(&mut self, brokers: &[BrokerId], elr: bool) {
        self.run.start(&Start {
            brokers,
            config: BrokerConfig::default(),
            elr,
        });
    }

    fn state(&self) -> &Cluster {
        self.run.state(self.side)
    }

    fn push(&mut self, event: &Event) {
        self.run.step(event);
    }

    fn stopped(&self) -> bool {
        self.run.stopped()
    }
}

/// Decode with `sides[guide]` as the guide, the history judged under `sides` as it is
/// drawn; with the bytes read ([`decode_read`]). `continue_at`: [`Decode::continue_at`].
/// The same history and the same verdict as decoding guided by `sides[guide]` then
/// `oracle::run(history, sides, false)` (a test compares them); a model panic ends the
/// history at the event that caused it, with the verdict's harness bug.
pub fn decode_judged(
    data: &[u8],
    sides: &[RuleSet],
    guide: usize,
    events_max: usize,
    elr: ElrMode,
    continue_at: Option<usize>,
) -> (History, Verdict, usize) {
    let mut judged = Judged {
        run: Lockstep::new(sides, false, apply),
        side: guide,
    };
    let (history, read) = decode_read(
        data,
        Decode {
            guide: sides[guide],
            events_max,
            elr,
            padded: false,
            feed: Some(&mut judged),
            without: &[],
            continue_at,
        },
    );
    (history, judged.run.finish(), read)
}

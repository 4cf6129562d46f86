//! Property test: no input line makes the UCI command handler or the search thread
//! panic, and the engine keeps answering afterwards.

use std::io::Write;
use std::sync::{Arc, Mutex};

use pnmate::engine::Engine;
use pnmate::uci::{Command, handle, parse_command};
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "mate",
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "infinite",
    "ponder",
    "searchmoves",
    "stop",
    "ponderhit",
    "setoption",
    "name",
    "value",
    "Hash",
    "Threads",
    "Clear",
    "Move",
    "Overhead",
    "MultiPV",
    "debug",
    "on",
    "off",
    "register",
    "later",
    "e2e4",
    "e7e5",
    "a1a8",
    "e1g1",
    "0000",
    "h7h8q",
    "-1",
    "0",
    "1",
    "3",
    "255",
    "256",
    "1000",
    "99999999999999999999",
    "8/8/8/8/8/8/8/8",
    "6k1/5ppp/8/8/8/8/8/R5K1",
    "w",
    "b",
    "-",
    "KQkq",
    "HAha",
    "e3",
    "  ",
    "\t",
    "\u{0}",
    "\u{fffd}",
    "ä",
];

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(proptest::sample::select(WORDS), 0..12).prop_map(|w| w.join(" ")),
        "\\PC{0,80}",
        proptest::collection::vec(any::<u8>(), 0..60).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_lines_never_panic(lines in proptest::collection::vec(line(), 1..6)) {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let out: Arc<Mutex<dyn Write + Send>> = Arc::new(Mutex::new(Sink(Arc::clone(&buf))));
        let mut engine = Engine::new();
        engine.set_option("Hash", Some("1")).unwrap();
        engine.set_option("TablesCache", Some("")).unwrap();
        for l in &lines {
            if let Ok(cmd) = parse_command(l) {
                let is_go = matches!(cmd, Command::Go(_));
                if !handle(&mut engine, cmd, &out) {
                    break;
                }
                if is_go {
                    engine.stop();
                    prop_assert!(engine.wait().is_ok(), "the search thread panicked after {:?}", l);
                }
            }
        }
        engine.stop();
        prop_assert!(engine.wait().is_ok(), "the search thread panicked in {:?}", lines);
        prop_assert!(handle(&mut engine, Command::IsReady, &out));
        let text = String::from_utf8_lossy(&buf.lock().unwrap()).into_owned();
        prop_assert!(text.ends_with("readyok\n"), "{}", text);
    }
}

//! The conformance mutation benchmark's mutants (ci/conform-mutants.json) still apply: each
//! one's text is in its file exactly once. A refactor that moves a mutant's code would
//! otherwise turn its run into a failure the benchmark reports as "not caught".

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn every_mutant_text_is_once_in_its_file() {
    let path = format!("{ROOT}/ci/conform-mutants.json");
    let mutants: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mutants = mutants.as_array().expect("a list of mutants");
    assert!(
        mutants.len() >= 25,
        "the issue asks for at least 25 mutants"
    );
    let mut stale = Vec::new();
    for m in mutants {
        let (id, file, old) = (m["id"].as_str(), m["file"].as_str(), m["old"].as_str());
        let (id, file, old) = (id.unwrap(), file.unwrap(), old.unwrap());
        let text = std::fs::read_to_string(format!("{ROOT}/{file}")).unwrap();
        let n = text.matches(old).count();
        if n != 1 {
            stale.push(format!("{id}: its text is {n} times in {file}"));
        }
    }
    assert!(stale.is_empty(), "stale mutants:\n{}", stale.join("\n"));
}

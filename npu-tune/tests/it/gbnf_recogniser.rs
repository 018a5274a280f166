//! The tests' GBNF recogniser reads grammars as llama.cpp's parser does
//! (`support/gbnf/parse.rs` cites the code it follows): what the server refuses with
//! HTTP 400 is an error here, and what it decodes under is recognised.

use crate::support::gbnf;

/// Whether `grammar` admits `text`, or the parser's error.
fn check(grammar: &str, text: &str, expected: &str) {
    let got = match gbnf::admits(grammar, text) {
        Ok(true) => "admits".to_string(),
        Ok(false) => "refuses".to_string(),
        Err(error) => format!("error: {error}"),
    };
    assert_eq!(got, expected, "grammar:\n{grammar}\ntext: {text:?}");
}

#[test]
fn a_rule_name_with_an_underscore_is_refused_as_llama_cpp_refuses_it() {
    check(
        "root ::= load-in_buffer1\nload-in_buffer1 ::= \"x\"\n",
        "x",
        "error: expecting newline or end at _buffer1\nload-in_buffer1 ::= \"x\"\n",
    );
    check(
        "root ::= \"x\"\nload-in_buffer1 ::= \"x\"\n",
        "x",
        "error: expecting ::= at _buffer1 ::= \"x\"\n",
    );
    // `#` opens a comment, so a raw identifier's name is cut to its `r`.
    check("root ::= r#in\nr ::= \"\"\n", "", "admits");
    check(
        "root ::= r#in\n",
        "",
        "error: undefined rule identifier 'r'",
    );
    check(
        "root ::= \"a\"\nin.x ::= \"b\"\n",
        "a",
        "error: expecting ::= at .x ::= \"b\"\n",
    );
}

#[test]
fn rule_names_take_letters_digits_and_dashes() {
    check(
        "root ::= load-t0\nload-t0 ::= \"in_buffer[\" [0-9] \"]\"\n",
        "in_buffer[3]",
        "admits",
    );
    check("root ::= A-9z\nA-9z ::= \"x\"\n", "x", "admits");
    check(
        "root ::= undefined-rule\n",
        "",
        "error: undefined rule identifier 'undefined-rule'",
    );
    check(
        "start ::= \"x\"\n",
        "x",
        "error: grammar does not contain a 'root' symbol",
    );
    check("root ::= \"a\"\nroot ::= \"b\"\n", "b", "admits");
}

#[test]
fn literals_and_classes_read_llama_cpps_escapes() {
    check(r#"root ::= "a\"b\\c\n\t""#, "a\"b\\c\n\t", "admits");
    check(r#"root ::= "\x41\u00e9\U0001F600""#, "Aé😀", "admits");
    check(r#"root ::= "\q""#, "", "error: unknown escape at \\q\"");
    check(
        r#"root ::= "\x4""#,
        "",
        "error: expecting 2 hex chars at 4\"",
    );
    check(r#"root ::= [\]\-a-c]+"#, "]-abc", "admits");
    check("root ::= [^\"\\n]*", "no quote", "admits");
    check("root ::= [^\"\\n]*", "a \" quote", "refuses");
    check("root ::= \"unclosed", "", "error: unexpected end of input");
    check("root ::= [a-", "", "error: unexpected end of input");
    check("root ::= . .", "ab", "admits");
}

#[test]
fn groups_repetitions_and_comments_are_llama_cpps() {
    let grammar = "# a comment\nroot ::= ( \"a\" | \"b\" )+ \"c\"? # trailing\n";
    check(grammar, "abba", "admits");
    check(grammar, "abc", "admits");
    check(grammar, "c", "refuses");
    check("root ::= \"x\"{2,3}", "xx", "admits");
    check("root ::= \"x\"{2,3}", "xxxx", "refuses");
    check("root ::= \"x\"{2}", "xx", "admits");
    check("root ::= \"x\"{2,}", "xxxxx", "admits");
    check("root ::= \"x\"{2,}", "x", "refuses");
    check("root ::= (\n  \"a\" |\n  \"b\"\n)\n", "b", "admits");
    check(
        "root ::=\n  \"a\"\n  | \"b\"\n",
        "b",
        "error: expecting name at | \"b\"\n",
    );
    check(
        "root ::= * \"a\"",
        "",
        "error: expecting preceding item to */+/?/{ at \"a\"",
    );
    check("root ::= (\"a\"", "a", "error: expecting ')' at ");
    check("root ::= \"a\"{x}", "a", "error: expecting an int at x}");
    check(
        "root ::= <[42]>",
        "",
        "error: token references need a vocabulary at <[42]>",
    );
}

#[test]
fn a_left_recursive_rule_is_an_error_not_a_hang() {
    check(
        "root ::= root \"a\" | \"a\"",
        "aa",
        "error: left recursion in rule `root`",
    );
}

#[test]
fn samples_are_admitted_by_their_grammar() {
    let grammar = "root ::= ( \"a\" | \"b\" )+ [^x] \"-\"{2} tail?\ntail ::= \".\" [0-9]*\n";
    for seed in 0..20 {
        let text = gbnf::sample(grammar, seed).unwrap();
        assert!(gbnf::admits(grammar, &text).unwrap(), "{text:?}");
    }
}

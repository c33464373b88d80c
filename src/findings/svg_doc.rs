//! The one SVG writer every picture uses: the `replay --svg` timeline (`svg.rs`) and the
//! benchmark plots (`bench/`). It sits here, the lowest layer that draws, so both can use
//! it. Elements are built attribute by attribute in the order the caller gives, and numbers
//! print as the caller passes them ([`Px`] for one decimal): a picture's bytes stay its
//! own choice, the writer only spares each one its own escaping and tag syntax.

use std::fmt::{Display, Write};

/// Text or an attribute value (in double quotes) with `&`, `<` and `>` escaped.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Text content with `&` and `<` escaped: all text content needs (a `>` may stay).
pub fn escape_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;")
}

/// A coordinate or length printed with one decimal, as the plots print them.
#[derive(Clone, Copy)]
pub struct Px(pub f64);

impl Display for Px {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.1}", self.0)
    }
}

/// The document's opening tag (font size 11), on a line of its own.
pub fn open(width: impl Display, height: impl Display, font_family: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         font-family=\"{font_family}\" font-size=\"11\">\n"
    )
}

/// A white background over the whole document, on a line of its own.
pub const BACKGROUND: &str = "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";

/// The document's closing tag, on a line of its own.
pub const CLOSE: &str = "</svg>\n";

/// An element under construction: its name and the attributes so far.
pub struct El {
    name: &'static str,
    out: String,
}

/// A new element named `name`.
pub fn el(name: &'static str) -> El {
    El {
        name,
        out: format!("<{name}"),
    }
}

impl El {
    /// One more attribute; `value` is written as given (escape it if it is user text).
    pub fn attr(mut self, name: &str, value: impl Display) -> El {
        let _ = write!(self.out, " {name}=\"{value}\"");
        self
    }

    /// The element without content: `<name …/>`.
    pub fn empty(self) -> String {
        self.out + "/>"
    }

    /// The element around `content` (text, escaped by the caller, or child elements).
    pub fn wrap(self, content: impl Display) -> String {
        format!("{}>{content}</{}>", self.out, self.name)
    }

    /// Only the opening tag: the caller writes the content and `</name>`.
    pub fn open(self) -> String {
        self.out + ">"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_keep_the_callers_order_and_numbers() {
        let line = el("line")
            .attr("x1", Px(1.26))
            .attr("y1", 40.0)
            .attr("stroke", "#ddd")
            .empty();
        assert_eq!(line, "<line x1=\"1.3\" y1=\"40\" stroke=\"#ddd\"/>");
        let text = el("text").attr("x", 3).wrap(escape("a<b>&"));
        assert_eq!(text, "<text x=\"3\">a&lt;b&gt;&amp;</text>");
        assert_eq!(escape_text("> 1 & <2"), "> 1 &amp; &lt;2");
        assert_eq!(el("g").attr("class", "side").open(), "<g class=\"side\">");
    }
}

/// A plot's vertical grid line at `x` from `top` to `bottom`, with its tick `label` under
/// it (the benchmark plots' time axes).
pub fn gridline(x: Px, top: f64, bottom: f64, label: &str) -> String {
    let line = el("line")
        .attr("x1", x)
        .attr("y1", top)
        .attr("x2", x)
        .attr("y2", bottom)
        .attr("stroke", "#ddd")
        .empty();
    let text = el("text")
        .attr("x", x)
        .attr("y", Px(bottom + 14.0))
        .attr("text-anchor", "middle")
        .wrap(label);
    format!("{line}{text}")
}

//! The input's words, one at a time, with the line each is on; some commands take the
//! rest of a line instead (titles, authors, remarks).

/// The words of an input, read in order.
pub struct Tokens<'a> {
    lines: Vec<&'a str>,
    line: usize,
    col: usize,
}

impl<'a> Tokens<'a> {
    pub fn new(text: &'a str) -> Tokens<'a> {
        Tokens { lines: text.lines().collect(), line: 0, col: 0 }
    }

    /// The line (from 1) of the next word, or of the last line at the end.
    pub fn line(&mut self) -> usize {
        self.skip_space();
        self.line.min(self.lines.len().saturating_sub(1)) + 1
    }

    fn skip_space(&mut self) {
        while self.line < self.lines.len() {
            let rest = &self.lines[self.line][self.col..];
            let trimmed = rest.trim_start();
            if trimmed.is_empty() {
                self.line += 1;
                self.col = 0;
            } else {
                self.col += rest.len() - trimmed.len();
                return;
            }
        }
    }

    /// The next word, left to be read.
    pub fn peek(&mut self) -> Option<&'a str> {
        self.skip_space();
        let rest = &self.lines.get(self.line)?[self.col..];
        rest.split_whitespace().next()
    }

    /// Whether the next word starts its line.
    pub fn at_line_start(&mut self) -> bool {
        self.skip_space();
        self.lines.get(self.line).is_some_and(|l| l[..self.col].trim().is_empty())
    }

    /// Reads the next word.
    pub fn next(&mut self) -> Option<&'a str> {
        let t = self.peek()?;
        self.col += t.len();
        Some(t)
    }

    /// The rest of the current line, after the word just read, trimmed.
    pub fn rest_of_line(&mut self) -> String {
        let Some(line) = self.lines.get(self.line) else { return String::new() };
        let rest = line[self.col..].trim().to_string();
        self.line += 1;
        self.col = 0;
        rest
    }
}

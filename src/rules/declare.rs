//! The registry's types and `rule!`, the one place a rule and its variants are declared.
//!
//! A rule module states each variant once, inside `rule!`: its enum arm with its doc, its
//! command-line name, its one-line summary and its provenance. The macro generates the enum,
//! `ALL` (declaration order), `name()`, and `RULE`, the rule's registry entry, whose `get`
//! and `set` read and write the rule's own `RuleSet` field. The rule's behaviour follows the
//! declaration in the same file, as exhaustive `match`es: a new variant that has no
//! behaviour yet does not compile.

use super::RuleSet;

/// The rule families: a preset sets the rules of its family only.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Family {
    Kraft,
    Inkless,
}

/// Registry entry for one variant.
pub struct VariantInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub provenance: &'static str,
}

/// Registry entry for one rule.
pub struct RuleInfo {
    pub id: &'static str,
    pub family: Family,
    pub summary: &'static str,
    /// In the rule enum's `ALL` order.
    pub variants: &'static [VariantInfo],
    /// The position in `variants` of this rule's variant in a rule set.
    pub get: fn(&RuleSet) -> usize,
    /// Set this rule of a rule set to `variants[i]`.
    pub set: fn(&mut RuleSet, usize),
}

impl RuleInfo {
    /// The registry entry of this rule's variant in `rules`.
    pub fn variant_of(&self, rules: &RuleSet) -> &'static VariantInfo {
        &self.variants[(self.get)(rules)]
    }

    /// The position of variant `name` in `variants`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.variants.iter().position(|v| v.name == name)
    }
}

/// Declare a rule: `id`, `family`, the `RuleSet` field that holds it, a summary, and each
/// variant with its doc, `name`, `summary` and `provenance`. See docs/adding-a-variant.md.
///
/// ```text
/// rule! {
///     pub enum Lag {
///         id: "lag",
///         family: Inkless,
///         field: lag,
///         summary: "when a follower in the ISR is out of sync (docs/model/inkless.md#lag-check)",
///         variants: {
///             /// What the variant models, and why it matters.
///             Uncapped {
///                 name: "uncapped",
///                 summary: "not (rec.leo = LEO_L or now − lcu ≤ lag)",
///                 provenance: "Partition.isFollowerOutOfSync at a5128f5095",
///             },
///         },
///     }
/// }
/// ```
macro_rules! rule {
    (
        pub enum $rule:ident {
            id: $id:literal,
            family: $family:ident,
            field: $field:ident,
            summary: $summary:literal,
            variants: {
                $(
                    $(#[$doc:meta])*
                    $variant:ident {
                        name: $name:literal,
                        summary: $variant_summary:literal,
                        provenance: $provenance:literal $(,)?
                    }
                ),+ $(,)?
            } $(,)?
        }
    ) => {
        #[doc = concat!("Rule `", $id, "`: ", $summary, ".")]
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
        pub enum $rule {
            $(
                $(#[$doc])*
                #[doc = ""]
                #[doc = concat!("`", $name, "`: ", $variant_summary, ". Source: ", $provenance, ".")]
                $variant,
            )+
        }

        impl $rule {
            /// Every variant, in declaration order (the registry's order).
            pub const ALL: [$rule; [$($name),+].len()] = [$($rule::$variant),+];

            /// The variant's name on the command line and in the registry.
            pub const fn name(self) -> &'static str {
                match self {
                    $($rule::$variant => $name,)+
                }
            }

            /// The rule's registry entry.
            pub const RULE: $crate::rules::RuleInfo = $crate::rules::RuleInfo {
                id: $id,
                family: $crate::rules::Family::$family,
                summary: $summary,
                variants: &[$($crate::rules::VariantInfo {
                    name: $name,
                    summary: $variant_summary,
                    provenance: $provenance,
                }),+],
                // Declaration order is `ALL` order, so the discriminant is the position.
                get: |rules| rules.$field as usize,
                set: |rules, i| rules.$field = $rule::ALL[i],
            };
        }
    };
}

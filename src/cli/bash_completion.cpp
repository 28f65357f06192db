// The bash completion script: tables written from the CLI11 definitions and the catalogs, and
// the functions that read them (plain bash: complete -F, compgen; no bash-completion helpers).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "app_docs.h"
#include "commands.h"
#include "taskmap/core/catalog.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/repro/reproduce.h"

namespace taskmap::cli {
namespace {

// The functions that read the tables.
constexpr std::string_view kFunctions = R"bash(
# A value's completion (_taskmap_values, _taskmap_bare, _taskmap_params) is a kind, then its
# arguments:
#   words W...        one of the words
#   file, dir         a file or a directory
#   prefix P          P (e.g. hwloc:), then a file after it
#   hostlist          after '@', a file
#   spec NOUN [SEPS]  a spec of the catalog NOUN: the entries (NAME: when a parameter is
#                     required), after NAME: the bare value or the keys, after KEY= the key's
#                     values; SEPS are the characters that start a new entry ('+' in a mapper
#                     pipeline, ',' in a list of mappers; ',' always starts a new key)
#   none              a value without completions (a number, a size)
# Rejoins the words that bash split at the characters of COMP_WORDBREAKS (the ':' of
# torus:4x4, the '=' of --machine=torus): _taskmap_words, and _taskmap_cword, the index of the
# word under the cursor.
_taskmap_rejoin() {
  local line=$COMP_LINE word rest i
  _taskmap_words=()
  _taskmap_cword=0
  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
    word=${COMP_WORDS[i]}
    rest=${line#"${line%%[![:space:]]*}"}
    if ((i > 0 && ${#rest} == ${#line})); then
      _taskmap_words[${#_taskmap_words[@]} - 1]+=$word
    else
      _taskmap_words+=("$word")
    fi
    line=${rest#"$word"}
    if ((i == COMP_CWORD)); then _taskmap_cword=$((${#_taskmap_words[@]} - 1)); fi
  done
}

# _taskmap_add KIND PREFIX TEXT [SUFFIX]: the completions of TEXT for a value of KIND (words
# W... or file), each between PREFIX and SUFFIX, into _taskmap_candidates.
_taskmap_add() {
  local -a kind
  local line
  read -ra kind <<<"$1"
  case ${kind[0]} in
    words)
      while IFS= read -r line; do _taskmap_candidates+=("$2$line${4-}"); done < <(compgen -W "${kind[*]:1}" -- "$3") ;;
    file)
      while IFS= read -r line; do _taskmap_candidates+=("$2$line"); done < <(compgen -f -- "$3")
      compopt -o filenames 2>/dev/null ;;
  esac
}

# _taskmap_spec NOUN SEPS TEXT: a spec of the catalog NOUN.
_taskmap_spec() {
  local noun=$1 seps=$2 text=$3 breaks=",$2" head="" item=$3 entry="" i it
  for ((i = ${#text} - 1; i >= 0; i--)); do
    if [[ $breaks == *"${text:i:1}"* ]]; then
      head=${text:0:i+1}
      item=${text:i+1}
      break
    fi
  done
  # The entry the item belongs to: the last earlier item that names one (NAME or NAME:...).
  local -a items
  IFS=$breaks read -ra items <<<"$head"
  for it in "${items[@]}"; do
    if [[ $it == *=* && ${it%%=*} != *:* ]]; then
      continue  # KEY=VALUE (a value may hold ':', as hier's dist=1:2)
    elif [[ $it == *:* ]]; then
      entry=${it%%:*}
    elif [[ -n $it ]]; then
      entry=$it
    fi
  done
  local sep=${head: -1} name rest key
  if [[ $item == *:* && ${item%%:*} != *=* ]]; then
    name=${item%%:*} rest=${item#*:}
    if [[ $rest == *=* ]]; then
      key=${rest%%=*}
      _taskmap_add "${_taskmap_params["$noun $name $key"]-}" "$head$name:$key=" "${rest#*=}"
    elif [[ -n ${_taskmap_bare["$noun $name"]+set} ]]; then
      _taskmap_add "${_taskmap_bare["$noun $name"]}" "$head$name:" "$rest"
    else
      _taskmap_add "words ${_taskmap_keys["$noun $name"]-}" "$head$name:" "$rest" =
    fi
  elif [[ $item == *=* ]]; then
    key=${item%%=*}
    [[ -n $entry ]] && _taskmap_add "${_taskmap_params["$noun $entry $key"]-}" "$head$key=" "${item#*=}"
  else
    if [[ -n $sep && $sep == , && -n $entry && -n ${_taskmap_keys["$noun $entry"]-} ]]; then
      _taskmap_add "words ${_taskmap_keys["$noun $entry"]}" "$head" "$item" =
    fi
    if [[ -z $sep || $seps == *"$sep"* ]]; then
      _taskmap_add "words ${_taskmap_entries[$noun]}" "$head" "$item"
    fi
  fi
  if [[ $seps == *,* ]]; then _taskmap_nospace=1; fi
}

# _taskmap_value KIND TEXT: the completions of an option's value or a positional argument.
_taskmap_value() {
  local -a kind
  local line
  read -ra kind <<<"$1"
  case ${kind[0]} in
    words | file) _taskmap_add "$1" "" "$2" ;;
    dir)
      while IFS= read -r line; do _taskmap_candidates+=("$line"); done < <(compgen -d -- "$2")
      compopt -o filenames 2>/dev/null ;;
    prefix)
      if [[ $2 == "${kind[1]}"* ]]; then
        _taskmap_add file "${kind[1]}" "${2#"${kind[1]}"}"
      else
        _taskmap_add "words ${kind[1]}" "" "$2"
      fi ;;
    hostlist)
      if [[ $2 == @* ]]; then
        while IFS= read -r line; do
          [[ -d $line ]] && line+=/
          _taskmap_candidates+=("@$line")
        done < <(compgen -f -- "${2#@}")
      fi ;;
    spec) _taskmap_spec "${kind[1]}" "${kind[2]-}" "$2" ;;
  esac
}

_taskmap() {
  local cur prev="" command=taskmap option="" value head="" i
  _taskmap_rejoin
  cur=${_taskmap_words[_taskmap_cword]}
  ((_taskmap_cword > 0)) && prev=${_taskmap_words[_taskmap_cword - 1]}
  for ((i = 1; i < _taskmap_cword; i++)); do
    if [[ " ${_taskmap_subcommands[$command]-} " == *" ${_taskmap_words[i]} "* ]]; then
      command+=" ${_taskmap_words[i]}"
    fi
  done
  value=$cur
  if [[ $cur == --*=* ]]; then
    option=${cur%%=*} value=${cur#*=} head=${cur%%=*}=
  elif [[ $prev == -* ]]; then
    option=$prev
  fi
  _taskmap_candidates=()
  _taskmap_nospace=0
  if [[ -n $option && -n ${_taskmap_values["$command $option"]+set} ]]; then
    _taskmap_value "${_taskmap_values["$command $option"]}" "$value"
  elif [[ $cur == -* ]]; then
    _taskmap_add "words ${_taskmap_options[$command]}" "" "$cur"
  elif [[ -n ${_taskmap_subcommands[$command]-} ]]; then
    _taskmap_add "words ${_taskmap_subcommands[$command]}" "" "$cur"
  elif [[ -n ${_taskmap_values[$command]+set} ]]; then
    _taskmap_value "${_taskmap_values[$command]}" "$cur"
  fi
  # Readline replaces only what follows the word's last word-break character, or what starts
  # with it for '@' and '$' (bash's rl_special_prefixes).
  local strip="" candidate
  for ((i = ${#cur} - 1; i >= 0; i--)); do
    if [[ $COMP_WORDBREAKS == *"${cur:i:1}"* ]]; then
      strip=${cur:0:i+1}
      [[ ${cur:i:1} == [@\$] ]] && strip=${cur:0:i}
      break
    fi
  done
  COMPREPLY=()
  for candidate in "${_taskmap_candidates[@]}"; do
    candidate=$head$candidate
    COMPREPLY+=("${candidate#"$strip"}")
  done
  if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == *[:=,+] ]]; then _taskmap_nospace=1; fi
  if ((_taskmap_nospace)); then compopt -o nospace 2>/dev/null; fi
  return 0
}

complete -F _taskmap taskmap
)bash";

// Single quotes for bash.
std::string bash_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The completion of a catalog parameter's value: files for a path, the choices of a choice;
// empty when the value is free (a number, sizes, letters).
std::string param_kind(const CatalogParam& p) {
  switch (p.type) {
    case ParamType::Path: return "file";
    case ParamType::Bool: return "words true false";
    case ParamType::Choice:
    case ParamType::Int: return p.choices.empty() ? "" : fmt::format("words {}", fmt::join(p.choices, " "));
    default: return "";
  }
}

// What an option's value is, from its placeholder (CLI11's type name, which --help shows):
// FILE, DIR, hwloc:FILE, HOSTLIST|@FILE, table|json (the words), a catalog's noun (MACHINE:
// a spec; MAPPER,...: a list), REPRODUCTION (`reproduce --list`'s names); "none" for a free value.
std::string option_kind(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  if (type == "FILE") return "file";
  if (type == "DIR") return "dir";
  if (type.ends_with(":FILE") && std::islower(static_cast<unsigned char>(type.front()))) {
    return "prefix " + type.substr(0, type.size() - 4);
  }
  if (type.find("@FILE") != std::string::npos) return "hostlist";
  if (type.find('|') != std::string::npos &&
      type.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-|") == std::string::npos) {
    std::string words = type;
    for (char& c : words) c = c == '|' ? ' ' : c;
    return "words " + words;
  }
  if (type == "REPRODUCTION") {
    std::string words;
    for (const repro::Entry& e : repro::reproduction_list()) words += " " + e.name;
    return "words" + words;
  }
  for (auto catalog : listed_catalogs()) {
    const Catalog& c = catalog();
    // Mapper specs alone chain into pipelines (A+B).
    const std::string pipeline = &c == &mapper_catalog() ? "+" : "";
    const std::string noun = upper(c.info().noun);
    if (type == noun) return fmt::format("spec {}{}", c.info().noun, pipeline.empty() ? "" : " " + pipeline);
    if (type == noun + ",...") return fmt::format("spec {} {},", c.info().noun, pipeline);
  }
  return "none";
}

}  // namespace

std::string render_bash_completion(const CLI::App& app) {
  std::map<std::string, std::string> subcommands, options, values;
  auto add_command = [&](const std::string& path, const CLI::App& command) {
    std::string names;
    for (const CLI::Option* o : command.get_options([](const CLI::Option* o) { return !o->get_group().empty(); })) {
      for (const std::string& l : o->get_lnames()) names += (names.empty() ? "--" : " --") + l;
      if (o->get_items_expected_max() == 0) continue;  // a flag
      if (o->get_positional()) {
        values[path] = option_kind(*o);
      } else {
        for (const std::string& l : o->get_lnames()) values[path + " --" + l] = option_kind(*o);
      }
    }
    options[path] = names;
  };
  add_command("taskmap", app);
  for (const ShownCommand& command : shown_commands(app)) {
    const std::size_t space = command.path.rfind(' ');
    std::string& siblings = subcommands[command.path.substr(0, space)];
    if (!siblings.empty()) siblings += ' ';
    siblings += command.path.substr(space + 1);
    add_command(command.path, *command.app);
  }

  std::map<std::string, std::string> entries, keys, bare, params;
  for (auto catalog : listed_catalogs()) {
    const Catalog& c = catalog();
    const std::string noun(c.info().noun);
    std::string& words = entries[noun];
    for (const CatalogEntry& e : c.entries()) {
      const bool required = std::any_of(e.params.begin(), e.params.end(), [](auto& p) { return p.required; });
      words += fmt::format("{}{}{}", words.empty() ? "" : " ", e.name, required ? ":" : "");
      const std::string at = fmt::format("{} {}", noun, e.name);
      std::string& names = keys[at];
      for (const CatalogParam& p : e.params) {
        const std::string kind = param_kind(p);
        if (e.positional && &p == &e.params.front()) {
          if (!kind.empty()) bare[at] = kind;
          continue;
        }
        if (!names.empty()) names += ' ';
        names += p.name;
        if (!kind.empty()) params[fmt::format("{} {}", at, p.name)] = kind;
      }
      if (names.empty()) keys.erase(at);
    }
  }

  std::string out =
      "# bash completion for taskmap(1). Generated by `taskmap generate bash-completion` from the command's\n"
      "# options (src/cli/main.cpp) and the catalogs (include/taskmap/core/catalog.h); do not edit.\n";
  auto table = [&](std::string_view name, std::string_view what, const std::map<std::string, std::string>& rows) {
    out += fmt::format("\n# {}\ndeclare -gA {}=(\n", what, name);
    for (const auto& [key, value] : rows) out += fmt::format("  [{}]={}\n", bash_quoted(key), bash_quoted(value));
    out += ")\n";
  };
  table("_taskmap_subcommands", "Each command's subcommands.", subcommands);
  table("_taskmap_options", "Each command's options.", options);
  table("_taskmap_values", "What the value of each option (\"COMMAND --OPTION\") and positional (\"COMMAND\") is.",
        values);
  table("_taskmap_entries", "Each catalog's entries.", entries);
  table("_taskmap_keys", "Each entry's keyed parameters (\"NOUN ENTRY\").", keys);
  table("_taskmap_bare", "The value of an entry's bare first parameter, after NAME:.", bare);
  table("_taskmap_params", "The value of a keyed parameter (\"NOUN ENTRY KEY\").", params);
  out += kFunctions;
  return out;
}

}  // namespace taskmap::cli

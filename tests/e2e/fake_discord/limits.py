"""Discord's limits on what a bot sends (message, embed, component, select, autocomplete) and
the shape of its 50035 "Invalid Form Body" answer with nested ``errors``."""

from __future__ import annotations

from collections.abc import Sequence

from .base import JSON, ApiError, MsgFlag, UploadedFile

FormError = tuple[str, str] | str
"""One invalid field of a request body: (dotted path, message), or a message for the body."""

EMBED_LIMITS = {"title": 256, "description": 4096}


def _too_long(path: str, text: object, limit: int) -> list[FormError]:
    n = len(str(text or ""))
    return [(path, f"Must be {limit} or fewer in length ({n} characters).")] if n > limit else []


def embed_errors(embeds: Sequence[JSON]) -> list[FormError]:
    """Discord's limits on embeds: counts, each field's length, 6000 characters in all."""
    errors: list[FormError] = []
    if len(embeds) > 10:
        errors.append(("embeds", f"Must be 10 or fewer in length ({len(embeds)} embeds)."))
    total = 0
    for i, embed in enumerate(embeds):
        where = f"embeds.{i}"
        for key, limit in EMBED_LIMITS.items():
            total += len(embed.get(key) or "")
            errors += _too_long(f"{where}.{key}", embed.get(key), limit)
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors.append((f"{where}.fields", f"Must be 25 or fewer in length ({len(fields)})."))
        for j, fld in enumerate(fields):
            name, value = str(fld.get("name", "")), str(fld.get("value", ""))
            total += len(name) + len(value)
            for key, text, limit in (("name", name, 256), ("value", value, 1024)):
                if not text:
                    errors.append((f"{where}.fields.{j}.{key}", "This field is required."))
                errors += _too_long(f"{where}.fields.{j}.{key}", text, limit)
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        total += len(footer) + len(author)
        errors += _too_long(f"{where}.footer.text", footer, 2048)
        errors += _too_long(f"{where}.author.name", author, 256)
    if total > 6000:
        errors.append(("embeds", f"Embed size exceeds maximum size of 6000 ({total})."))
    return errors


def component_errors(rows: Sequence[JSON]) -> list[FormError]:
    """Discord's limits on classic components (action rows of buttons and selects)."""
    errors: list[FormError] = []
    if len(rows) > 5:
        errors.append(("components", f"Must be 5 or fewer in length ({len(rows)} action rows)."))
    ids: list[str] = []
    for i, row in enumerate(rows):
        inner = row.get("components") or []
        if row.get("type") != 1:
            errors.append((f"components.{i}", "Not an action row."))
            continue
        selects = [c for c in inner if c.get("type") in (3, 5, 6, 7, 8)]
        if not inner or len(inner) > 5 or (selects and len(inner) > 1):
            errors.append(
                (f"components.{i}.components", "1-5 buttons or one select menu alone per row.")
            )
        for k, comp in enumerate(inner):
            errors += _item_errors(f"components.{i}.components.{k}", comp)
            if "custom_id" in comp:
                ids.append(comp["custom_id"])
    dupes = {x for x in ids if ids.count(x) > 1}
    if dupes:
        errors.append(("components", f"Component custom id cannot be duplicated {sorted(dupes)}."))
    return errors


def _item_errors(where: str, comp: JSON) -> list[FormError]:
    """One button or select menu."""
    errors: list[FormError] = []
    if "custom_id" in comp and not 1 <= len(comp["custom_id"]) <= 100:
        errors.append((f"{where}.custom_id", "Must be between 1 and 100 in length."))
    if comp.get("type") == 2:
        style = comp.get("style")
        if (style == 5 and not comp.get("url")) or (
            style in (1, 2, 3, 4) and "custom_id" not in comp
        ):
            need = "url" if style == 5 else "custom_id"
            errors.append((f"{where}.{need}", f"A button of style {style} needs a {need}."))
        errors += _too_long(f"{where}.label", comp.get("label"), 80)
        if not comp.get("label") and not comp.get("emoji"):
            errors.append((f"{where}.label", "A button needs a label or an emoji."))
    if comp.get("type") == 3:
        options = comp.get("options") or []
        if not 1 <= len(options) <= 25:
            errors.append(
                (f"{where}.options", f"Must be between 1 and 25 in length ({len(options)}).")
            )
        if len({o.get("value") for o in options}) != len(options):
            errors.append((f"{where}.options", "Option values must be unique."))
        for n, o in enumerate(options):
            for key in ("label", "value"):
                if not 1 <= len(o.get(key) or "") <= 100:
                    errors.append(
                        (f"{where}.options.{n}.{key}", "Must be between 1 and 100 in length.")
                    )
            errors += _too_long(f"{where}.options.{n}.description", o.get("description"), 100)
    if comp.get("type") in (3, 5, 6, 7, 8):
        errors += _too_long(f"{where}.placeholder", comp.get("placeholder"), 150)
        low, high = comp.get("min_values", 1), comp.get("max_values", 1)
        if not 0 <= low <= 25:
            errors.append((f"{where}.min_values", "Must be between 0 and 25."))
        if not 1 <= high <= 25:
            errors.append((f"{where}.max_values", "Must be between 1 and 25."))
        if low > high:
            errors.append((f"{where}.min_values", "Must be less than or equal to max_values."))
    return errors


def choice_errors(choices: Sequence[JSON]) -> list[FormError]:
    """Autocomplete choices: at most 25, names 1-100 characters, string values up to 100."""
    errors: list[FormError] = []
    if len(choices) > 25:
        errors.append(("data.choices", f"Must be 25 or fewer in length ({len(choices)})."))
    for n, choice in enumerate(choices):
        if not 1 <= len(str(choice.get("name") or "")) <= 100:
            errors.append((f"data.choices.{n}.name", "Must be between 1 and 100 in length."))
        if isinstance(choice.get("value"), str):
            errors += _too_long(f"data.choices.{n}.value", choice["value"], 100)
    return errors


def form_errors(errors: Sequence[FormError]) -> JSON:
    """Discord's nested ``errors`` object of a 50035 answer:
    ``{"content": {"_errors": [{"code": ..., "message": ...}]}}``, one level per path part."""
    tree: JSON = {}
    for error in errors:
        path, message = error if isinstance(error, tuple) else ("", error)
        node = tree
        for part in filter(None, path.split(".")):
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": "BASE_TYPE_INVALID", "message": message})
    return tree


def validate_message(
    body: JSON, files: Sequence[UploadedFile], *, creating: bool, size_limit: int
) -> None:
    """Discord's limits on a message body (create, edit, callback, followup, DM alike)."""
    size = sum(len(data) for _, _, data, _ in files)
    if size > size_limit:
        raise ApiError(413, 40005, f"Request entity too large ({size} bytes)", failure=True)
    content = body.get("content") or ""
    embeds = body.get("embeds") or []
    components = body.get("components") or []
    if creating and not (
        content.strip()
        or embeds
        or components
        or files
        or body.get("sticker_ids")
        or body.get("poll")
    ):
        raise ApiError(400, 50006, "Cannot send an empty message", failure=True)
    errors: list[FormError] = []
    if len(content) > 2000:
        errors.append(("content", f"Must be 2000 or fewer in length ({len(content)} characters)."))
    errors += embed_errors(embeds)
    errors += attachment_errors(body.get("attachments") or [], files)
    if not (body.get("flags") or 0) & MsgFlag.COMPONENTS_V2:
        errors += component_errors(components)
    raise_form_errors(errors)


ATTACHMENTS_MAX = 10
DESCRIPTION_MAX = 1024
FILENAME_MAX = 1024


def attachment_errors(described: Sequence[JSON], files: Sequence[UploadedFile]) -> list[FormError]:
    """Discord's limits on a message's files: at most 10, each with a file name and a
    description of at most 1,024 characters."""
    errors: list[FormError] = []
    if len(files) > ATTACHMENTS_MAX or len(described) > ATTACHMENTS_MAX:
        count = max(len(files), len(described))
        errors.append(("attachments", f"Must be {ATTACHMENTS_MAX} or fewer in length ({count})."))
    for n, meta in enumerate(described):
        if not isinstance(meta, dict):
            errors.append((f"attachments.{n}", "Must be an object."))
            continue
        where = f"attachments.{n}"
        errors += _too_long(f"{where}.description", meta.get("description"), DESCRIPTION_MAX)
        errors += _too_long(f"{where}.filename", meta.get("filename"), FILENAME_MAX)
    for name, filename, _, _ in files:
        if not filename:
            errors.append((f"attachments.{name}", "A file needs a file name."))
    return errors


def raise_form_errors(errors: Sequence[FormError]) -> None:
    """Answer 400 code 50035 (a bot bug) when ``errors`` is not empty."""
    if errors:
        raise ApiError(400, 50035, "Invalid Form Body", failure=True, errors=errors)

#!/bin/sh
# Layer include rule (STYLE.md item 1): every src/<layer>/README.md has a line
#   May include: `a`, `b`
# naming the other layers whose headers that layer may include (or "nothing").
# Fails listing every #include "<layer>/..." that crosses to a layer not named.
root=${1:?usage: check_layers.sh SOURCE_ROOT}
status=0
layers=$(cd "$root/src" && for d in */; do printf '%s ' "${d%/}"; done)
for layer in $layers; do
    readme="$root/src/$layer/README.md"
    if [ ! -f "$readme" ]; then
        echo "src/$layer has no README.md saying what it may include"
        status=1
        continue
    fi
    line=$(grep -i '^May include:' "$readme" | head -n 1)
    if [ -z "$line" ]; then
        echo "src/$layer/README.md has no 'May include:' line"
        status=1
        continue
    fi
    allowed=" $layer $(echo "$line" | grep -o '`[a-z0-9_]*`' | tr -d '`' | tr '\n' ' ') "
    for f in "$root/src/$layer"/*.c "$root/src/$layer"/*.h; do
        [ -f "$f" ] || continue
        for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z0-9_]*\)\/.*/\1/p' "$f"); do
            case " $layers " in *" $inc "*) ;; *) continue ;; esac
            case "$allowed" in
                *" $inc "*) ;;
                *) echo "layer violation: ${f#$root/} includes $inc/ (src/$layer may include:$allowed)"
                   status=1 ;;
            esac
        done
    done
done
[ $status -eq 0 ] && echo "layer includes: ok ($(echo $layers | wc -w) layers)"
exit $status

"""Who on the staff may act on whom (docs/staff.md), enforced below the forms.

The rules, after Saleor (nobody grants a permission they lack or manages a user wider than
themselves) and Zulip (an administrator cannot create or demote an owner):

- nobody acts on their own account or on an account of an equal or higher rank
  (``roles.rank``), except to change their own password through the password form;
- only a superuser creates accounts in the admin, grants or removes roles (groups) and
  permissions, makes staff or superusers, or sets a password;
- the ways to an account's credentials are guarded like its password: only a superuser renames
  an account (the log-in name) or changes the e-mail address of a staff account (a password
  reset goes to it); a staff change of a player's address holds resets back
  (``staff.credentials``).

Django's own documentation warns that a user who may edit users can make themselves a
superuser; so the rules are checked where the change is saved, not only where the form is
drawn: a ``pre_save`` on the user model and ``m2m_changed`` on the role and permission links
refuse, while a staff member acts (``staff.audit.current``), any change the rules forbid,
whichever admin page, form or code path makes it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group
from django.db.models.signals import m2m_changed, pre_save
from django.dispatch import receiver

from accounts.models import User
from staff import audit, roles
from staff.audit import StaffRefused

#: User fields only a superuser may change (roles and permissions are the many-to-many links).
PRIVILEGED_FIELDS = ("is_staff", "is_superuser", "password")
#: Fields that lead to an account's credentials: only a superuser renames an account, and only a
#: superuser changes a staff account's address (a password reset goes to it).
CREDENTIAL_FIELDS = ("username", "email")
#: Admin form keys that ask for a privileged change: a non-superuser's form has none of them.
PRIVILEGED_FORM_KEYS = (*PRIVILEGED_FIELDS, "groups", "user_permissions", "password1", "password2")


def may_act_on(actor: Any, target: Any) -> bool:
    """Whether ``actor`` may act on ``target``'s account (suspend, adjust, edit)."""
    if target is None or actor is None:
        return False
    return bool(actor.pk != target.pk and roles.rank(actor) > roles.rank(target))


def check_may_act_on(actor: Any, target: Any, *, verb: str) -> None:
    """Raise ``StaffRefused`` unless ``actor`` may act on ``target``."""
    if actor.pk == target.pk:
        raise StaffRefused(
            f"{actor.username} may not {_words(verb)} their own account", verb=verb, target=target
        )
    if not may_act_on(actor, target):
        raise StaffRefused(
            f"{actor.username} ({roles.role_name(actor)}) may not {_words(verb)} "
            f"{target.username} ({roles.role_name(target)}): an equal or higher role",
            verb=verb,
            target=target,
        )


def is_staff_account(user: Any) -> bool:
    """Any account with a role or a power: staff, superuser, a group or a permission of its own."""
    if user is None or not getattr(user, "pk", None):
        return False
    return bool(
        user.is_staff
        or user.is_superuser
        or roles.rank(user) >= roles.STAFF
        or user.groups.exists()
        or user.user_permissions.exists()
    )


def _words(verb: str) -> str:
    return verb.replace("_", " ")


def check_user_change(actor: Any, old: User | None, new: User) -> None:
    """Refuse a change to ``new`` (``old``: as stored) that ``actor``'s role does not allow."""
    if old is None:
        if not actor.is_superuser:
            raise StaffRefused(
                "only a superuser creates accounts in the admin", verb="add_user", target=actor
            )
        if new.is_superuser:
            raise StaffRefused(
                "superusers are made on the command line (manage.py createsuperuser), not in the admin",
                verb="add_user",
                target=actor,
            )
        return
    changed = {
        f.attname for f in User._meta.concrete_fields if getattr(old, f.attname) != getattr(new, f.attname)
    } - {"last_login"}
    if not changed:
        return
    if actor.pk == new.pk:
        if changed <= {"password"}:
            return  # their own password, through the password form (it asks for the old one)
        raise StaffRefused(
            f"{actor.username} may not change their own account here ({', '.join(sorted(changed))})",
            verb="change_user",
            target=new,
        )
    check_may_act_on(actor, old, verb="change_user")
    privileged = sorted(changed & set(PRIVILEGED_FIELDS))
    if privileged and not actor.is_superuser:
        raise StaffRefused(
            f"only a superuser may change {', '.join(privileged)} (of {new.username})",
            verb="change_user",
            target=new,
        )
    if "username" in changed and not actor.is_superuser:
        raise StaffRefused(
            f"only a superuser may rename an account (of {old.username})", verb="change_user", target=new
        )
    if "email" in changed and not actor.is_superuser and is_staff_account(old):
        raise StaffRefused(
            f"only a superuser may change the e-mail address of a staff account ({old.username}): "
            "a password reset goes to it",
            verb="change_user",
            target=new,
        )
    if new.is_superuser and not old.is_superuser:
        raise StaffRefused(
            "superusers are made on the command line (manage.py createsuperuser), not in the admin",
            verb="change_user",
            target=new,
        )


@receiver(pre_save, sender=User)
def guard_user_save(sender: Any, instance: User, raw: bool = False, **kwargs: Any) -> None:
    acting = audit.current()
    if acting is None or raw:
        return
    old = User.objects.filter(pk=instance.pk).first() if instance.pk else None
    check_user_change(acting.user, old, instance)
    # the address as stored, for the hold a staff change of it starts (``staff.credentials``)
    instance._stored_email = old.email if old is not None else None  # type: ignore[attr-defined]  # an attribute of ours on another library's object


def _check_links(actor: Any, users: list[Any], what: str) -> None:
    if not actor.is_superuser:
        raise StaffRefused(
            f"only a superuser may change {what}", verb="grant", target=users[0] if users else actor
        )
    for user in users:
        if user.pk == actor.pk or not may_act_on(actor, user):
            raise StaffRefused(
                f"{actor.username} may not change the {what} of {user.username}: their own or an equal role",
                verb="grant",
                target=user,
            )


@receiver(m2m_changed, sender=User.groups.through)
@receiver(m2m_changed, sender=User.user_permissions.through)
def guard_user_links(
    sender: Any, instance: Any, action: str, reverse: bool, pk_set: Any, **kwargs: Any
) -> None:
    """Roles and permissions of users: a superuser's to grant, never to themselves or an equal."""
    acting = audit.current()
    if acting is None or not action.startswith("pre_"):
        return
    what = "roles" if sender is User.groups.through else "permissions"
    if reverse:  # group.user_set.add(...): the users named in pk_set, or every member on a clear
        ids = (
            list(pk_set or [])
            if action != "pre_clear"
            else list(instance.user_set.values_list("pk", flat=True))
        )
        users = list(User.objects.filter(pk__in=ids))
    else:
        users = [instance]
    _check_links(acting.user, users, what)


@receiver(m2m_changed, sender=Group.permissions.through)
def guard_group_permissions(sender: Any, instance: Any, action: str, **kwargs: Any) -> None:
    """What a role may do: a superuser's decision only."""
    acting = audit.current()
    if acting is None or not action.startswith("pre_"):
        return
    if not acting.user.is_superuser:
        target = instance if isinstance(instance, Group) else acting.user
        raise StaffRefused("only a superuser may change what a role may do", verb="grant", target=target)

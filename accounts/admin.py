from django.contrib.auth.admin import UserAdmin

from core.admin_base import QuickRowsMixin


# the base of the page ``staff.admin.players`` registers, with what staff may do there
class PlayerAdmin(QuickRowsMixin, UserAdmin):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    fieldsets = (*UserAdmin.fieldsets, ("Table", {"fields": ("display_name",)}))  # type: ignore[misc]  # Optional in django-stubs; Django's UserAdmin always sets it
    list_display: tuple[str, ...] = ("username", "display_name", "email", "is_staff", "date_joined")
    search_fields = ("username", "display_name", "email")
